// Inside bwrap, everything the runner needs is there: Node, warden's dist and its dependencies.
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { findPackageRoot } from "../../src/sandbox/packageRoot.js";
import { finish, NEEDS_BWRAP, request, useBwrapSandbox } from "./sandboxFixture.js";
import { skipWhen } from "../support/skipWhen.js";

const ROOT = findPackageRoot() ?? "/nonexistent";
const GUEST = join(ROOT, "dist", "guest", "warden-guest.cjs");

describe("what the runner needs inside bwrap", { skip: NEEDS_BWRAP }, () => {
  const suite = useBwrapSandbox();

  test("Node runs, and warden's dependencies load from its node_modules", async () => {
    const code = `const r = require("node:module").createRequire(${JSON.stringify(join(ROOT, "package.json"))});
      for (const name of ["yaml", "zod", "tar-stream", "commander"]) r(name);
      console.log(process.version);`;
    const run = await finish(
      await suite.backend.start(
        request(
          suite.dirs,
          { program: process.execPath, args: ["-e", code, "--"] },
          { readOnlyBinds: [] },
        ),
      ),
    );
    assert.equal(run.stderr, "");
    assert.equal(run.stdout.trim(), process.version);
    assert.equal(run.exit.code, 0);
  });

  test(
    "the built runner starts inside and answers --help",
    {
      skip: skipWhen(
        existsSync(GUEST) ? false : "dist/guest/warden-guest.cjs is not built: npm run build",
      ),
    },
    async () => {
      const run = await finish(
        await suite.backend.start(
          request(
            suite.dirs,
            { program: process.execPath, args: [GUEST, "--help"] },
            { readOnlyBinds: [] },
          ),
        ),
      );
      assert.equal(run.exit.code, 0, run.stderr);
      assert.match(run.stdout, /--share/);
    },
  );

  test("git, which the runner needs, runs inside", async () => {
    const run = await finish(
      await suite.backend.start(request(suite.dirs, { program: "git", args: ["--version", "--"] })),
    );
    assert.match(run.stdout, /^git version/);
  });
});
