// `warden doctor`'s view of the backends, and the refusal at start when one cannot run.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { describe, test } from "node:test";
import { probeBwrapHost } from "../../src/sandbox/bwrapHost.js";
import { scanChildren } from "../../src/sandbox/findRunner.js";
import { checkBackends, sandboxBackend } from "../../src/sandbox/index.js";
import { makeTaskDirs, NEEDS_BWRAP, probe, removeTaskDirs, request } from "./sandboxFixture.js";

describe("which backends work here", () => {
  test(
    "doctor reports every backend, and bwrap works on this machine",
    { skip: NEEDS_BWRAP },
    async () => {
      const reports = await checkBackends();
      assert.deepEqual(
        reports.map((r) => [r.name, r.isolated, r.ok]),
        [
          ["bwrap", true, true],
          ["none", false, true],
        ],
      );
      const bwrap = reports[0];
      assert.ok(bwrap?.ok === true);
      assert.match(bwrap.detail, /bubblewrap \d+\.\d+\.\d+ at \//);
      assert.match(bwrap.detail, /memory limits|no memory limits/);
    },
  );

  test("none always works and says that it does not isolate", async () => {
    const check = await sandboxBackend("none").check();
    assert.ok(check.ok);
    assert.match(check.detail, /NO isolation/);
  });

  test("a missing bwrap is reported with what to install, and start refuses", async () => {
    const backend = sandboxBackend("bwrap", {
      bwrap: { host: { ...probeBwrapHost(), bwrap: null } },
    });
    const check = await backend.check();
    assert.ok(!check.ok);
    assert.match(check.why, /not installed/);
    assert.match(check.fix, /apt-get install bubblewrap/);
    const dirs = await makeTaskDirs();
    try {
      await assert.rejects(backend.start(request(dirs, probe("streams"))), {
        code: "SANDBOX_UNAVAILABLE",
        hint: /apt-get install bubblewrap/,
      });
    } finally {
      await removeTaskDirs(dirs);
    }
  });

  test("a bwrap that does not work is refused at start with why and how to fix it", async () => {
    const backend = sandboxBackend("bwrap", {
      bwrap: { host: { ...probeBwrapHost(), bwrap: "/bin/false" } },
    });
    const check = await backend.check();
    assert.ok(!check.ok);
    const dirs = await makeTaskDirs();
    try {
      await assert.rejects(backend.start(request(dirs, probe("streams"))), {
        code: "SANDBOX_UNAVAILABLE",
      });
    } finally {
      await removeTaskDirs(dirs);
    }
  });

  test(
    "a workspace that does not exist is refused before bwrap runs",
    { skip: NEEDS_BWRAP },
    async () => {
      const dirs = await makeTaskDirs();
      await removeTaskDirs(dirs);
      await assert.rejects(sandboxBackend("bwrap").start(request(dirs, probe("streams"))), {
        code: "BAD_SANDBOX_REQUEST",
        message: /is not a directory/,
      });
    },
  );
});

describe("finding the runner's process", () => {
  test("scanning /proc finds a process's children, as on kernels without a children list", async () => {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"], {
      stdio: "ignore",
    });
    try {
      assert.ok((await scanChildren(process.pid)).includes(child.pid ?? -1));
    } finally {
      child.kill("SIGKILL");
    }
  });
});
