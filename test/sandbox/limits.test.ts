// Memory and process limits in bwrap, applied by the kernel through cgroups, and seen to bite.
import { strict as assert } from "node:assert";
import { readdirSync } from "node:fs";
import { describe, test } from "node:test";
import { probeCgroupHost } from "../../src/sandbox/cgroupHost.js";
import { finish, NEEDS_BWRAP, request, useBwrapSandbox } from "./sandboxFixture.js";
import { skipWhen, type SkipReason } from "../support/skipWhen.js";

const MiB = 1024 * 1024;
const cgroups = await probeCgroupHost();

function skipUnless(site: { ok: true } | { ok: false; why: string }): SkipReason {
  if (NEEDS_BWRAP !== false) return NEEDS_BWRAP;
  return skipWhen(site.ok ? false : `cgroups cannot bound sandboxes on this host: ${site.why}`);
}

describe("limits on a bwrap sandbox", () => {
  const suite = useBwrapSandbox();

  test(
    "a runner that goes over its memory limit is killed, and the exit says so",
    { skip: skipUnless(cgroups.memory) },
    async () => {
      const hog = `const keep = []; for (let i = 0; i < 2048; i++) keep.push(Buffer.alloc(${MiB}, 1));
        console.log("survived");`;
      const sandbox = await suite.backend.start(
        request(
          suite.dirs,
          { program: process.execPath, args: ["-e", hog, "--"] },
          {
            limits: { memoryBytes: 128 * MiB },
          },
        ),
      );
      assert.deepEqual(sandbox.warnings, []);
      const run = await finish(sandbox);
      assert.equal(run.stdout, "");
      assert.equal(run.exit.code, 137, JSON.stringify(run.exit));
      assert.equal(run.exit.outOfMemory, true);
    },
  );

  test(
    "a runner that forks without end stops at its process limit",
    { skip: skipUnless(cgroups.pids) },
    async () => {
      const bomb = `const { spawn } = require("node:child_process");
        let started = 0, refused = 0;
        for (let i = 0; i < 200; i++) {
          const c = spawn("/bin/sleep", ["30"], { stdio: "ignore" });
          c.on("spawn", () => { started++; });
          c.on("error", () => { refused++; });
        }
        setTimeout(() => { console.log(JSON.stringify({ started, refused })); process.exit(0); }, 1500);`;
      const sandbox = await suite.backend.start(
        request(
          suite.dirs,
          { program: process.execPath, args: ["-e", bomb, "--"] },
          {
            limits: { processes: 48 },
          },
        ),
      );
      const run = await finish(sandbox);
      const { started, refused } = JSON.parse(run.stdout) as { started: number; refused: number };
      assert.ok(started < 48, `${started} processes started`);
      assert.ok(refused > 0, "no fork was refused");
      assert.equal(run.exit.code, 0);
    },
  );

  test(
    "the sandbox's cgroups are gone once it has ended",
    { skip: skipUnless(cgroups.memory) },
    async () => {
      const req = request(
        suite.dirs,
        { program: "/bin/true", args: [] },
        {
          limits: { memoryBytes: 256 * MiB, processes: 64 },
        },
      );
      const run = await finish(await suite.backend.start(req));
      assert.equal(run.exit.code, 0);
      for (const site of [cgroups.memory, cgroups.pids]) {
        if (!site.ok) continue;
        const left = readdirSync(site.parent).filter((name) =>
          name.startsWith(`warden-${req.taskId}`),
        );
        assert.deepEqual(left, [], "the sandbox's cgroups are removed");
      }
    },
  );
});
