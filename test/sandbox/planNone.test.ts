// The none plan, tested pure.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { SandboxRequest } from "../../src/sandbox/index.js";
import { planNone, renderNone, type NoneHost } from "../../src/sandbox/planNone.js";

const HOST: NoneHost = { tmpDir: "/tmp", home: "/home/alice", nodeDir: "/opt/node/bin" };

const REQUEST: SandboxRequest = {
  taskId: "t1",
  share: "/srv/t1/share",
  workspace: "/srv/t1/workspace",
  sockets: [{ name: "egress", path: "/srv/t1/egress.sock" }],
  runner: { program: "/opt/node/bin/node", args: ["/opt/warden/dist/guest/main.js"] },
  readOnlyBinds: [],
  env: { WARDEN_TASK_ID: "t1" },
  limits: {},
};

describe("the none plan", () => {
  test("the runner is told the host paths, and has no PID namespace of its own", () => {
    const command = renderNone(planNone(REQUEST, HOST));
    assert.equal(command.program, "/opt/node/bin/node");
    assert.deepEqual(command.args, [
      "/opt/warden/dist/guest/main.js",
      "--share",
      "/srv/t1/share",
      "--workspace",
      "/srv/t1/workspace",
      "--scratch",
      "/tmp/warden-none-t1/scratch",
    ]);
    assert.equal(command.cwd, "/srv/t1/workspace");
    assert.deepEqual(command.fds, []);
  });

  test("the environment is a clean minimal one plus the request's, with a home of its own", () => {
    const { env } = renderNone(planNone(REQUEST, HOST));
    assert.deepEqual(env, {
      PATH: "/opt/node/bin:/usr/local/bin:/usr/bin:/bin",
      HOME: "/tmp/warden-none-t1/home",
      TMPDIR: "/tmp/warden-none-t1/tmp",
      LANG: "C.UTF-8",
      WARDEN_GUEST_SOCKETS: "/tmp/warden-none-t1/run",
      // The runner shares the host's network here, so its forwarders must take free ports.
      WARDEN_GUEST_EGRESS_PORTS: "any",
      WARDEN_TASK_ID: "t1",
    });
  });

  test("the sockets are linked by name, and limits are kept to be reported as not applied", () => {
    const plan = planNone({ ...REQUEST, limits: { processes: 64 } }, HOST);
    assert.deepEqual(plan.sockets, REQUEST.sockets);
    assert.equal(plan.socketDir, "/tmp/warden-none-t1/run");
    assert.deepEqual(plan.limits, { processes: 64 });
  });

  test("the same checks refuse a bad request", () => {
    assert.throws(() => planNone({ ...REQUEST, workspace: "/home/alice" }, HOST), {
      code: "BAD_SANDBOX_REQUEST",
    });
  });
});
