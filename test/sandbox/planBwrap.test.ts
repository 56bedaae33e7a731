// The bwrap plan and its argv, tested pure: fixed host facts in, argv out, no process started.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import type { SandboxRequest } from "../../src/sandbox/index.js";
import { planBwrap } from "../../src/sandbox/planBwrap.js";
import { renderBwrap } from "../../src/sandbox/renderBwrap.js";
import { SANDBOX_LIMITS } from "../../src/sandbox/limits.js";
import type { BwrapHost } from "../../src/sandbox/bwrapHost.js";
import type { SandboxCommand } from "../../src/sandbox/sandboxCommand.js";

const HOST: BwrapHost = {
  bwrap: "/usr/bin/bwrap",
  home: "/home/alice",
  systemDirs: [
    { kind: "dir", path: "/usr" },
    { kind: "symlink", path: "/bin", target: "usr/bin" },
    { kind: "symlink", path: "/lib", target: "usr/lib" },
    { kind: "symlink", path: "/lib64", target: "usr/lib64" },
  ],
  etcEntries: ["/etc/ld.so.cache", "/etc/ssl/certs"],
  nodeDir: "/opt/node/bin",
  packageFiles: ["/opt/warden/package.json", "/opt/warden/dist", "/opt/warden/node_modules"],
  identity: { kind: "own", uid: 1001, gid: 1001 },
  setpriv: "/usr/bin/setpriv",
  timeout: "/usr/bin/timeout",
  arch: "x64",
};

const REQUEST: SandboxRequest = {
  taskId: "01jd7x0000000000000000000a",
  share: "/srv/warden/tasks/a/share",
  workspace: "/srv/warden/tasks/a/workspace",
  sockets: [{ name: "egress", path: "/srv/warden/tasks/a/egress.sock" }],
  runner: { program: "/opt/node/bin/node", args: ["/opt/warden/dist/guest/main.js"] },
  readOnlyBinds: ["/usr/local/bin/claude", "/opt/claude"],
  env: { WARDEN_TASK_ID: "01jd7x0000000000000000000a" },
  limits: { memoryBytes: 512 * 1024 * 1024 },
};

function render(request: Partial<SandboxRequest> = {}, host: BwrapHost = HOST): SandboxCommand {
  return renderBwrap(planBwrap({ ...REQUEST, ...request }, host));
}

/** Whether `args` has the words `seq` next to each other. */
function hasRun(args: string[], ...seq: string[]): boolean {
  return args.some((_, i) => seq.every((w, j) => args[i + j] === w));
}

/** bwrap's own options: everything before the `--` that ends them. */
function options(command: SandboxCommand): string[] {
  return command.args.slice(0, command.args.indexOf("--"));
}

/** The host paths bound in, read-only or not. */
function bindSources(args: string[]): string[] {
  return args.flatMap((a, i) => (a === "--bind" || a === "--ro-bind" ? [args[i + 1] ?? ""] : []));
}

/** The text of the descriptor given to --args: the environment, as NUL-ended words. */
function envWords(command: SandboxCommand): string[] {
  const at = command.args.indexOf("--args");
  const fd = Number(command.args[at + 1]);
  const data = command.fds.find((f) => f.fd === fd);
  if (data?.role !== "data") throw new Error(`descriptor ${fd} carries no data`);
  return data.text.split("\0").slice(0, -1);
}

describe("the bwrap plan", () => {
  test("--uid 1000, --gid 1000 and --cap-drop ALL are always there, whoever runs warden", () => {
    const args = options(render());
    assert.ok(hasRun(args, "--uid", "1000"));
    assert.ok(hasRun(args, "--gid", "1000"));
    assert.ok(hasRun(args, "--cap-drop", "ALL"));
    assert.equal(args.includes("--cap-add"), false);
  });

  test("every namespace is unshared, user namespaces included, and none can be made inside", () => {
    const args = options(render());
    for (const flag of ["--unshare-all", "--unshare-user", "--disable-userns"]) {
      assert.ok(args.includes(flag), flag);
    }
    assert.equal(args.includes("--share-net"), false);
    assert.equal(args.includes("--unshare-user-try"), false);
  });

  test("the sandbox dies with its parent and has a session of its own", () => {
    const args = options(render());
    assert.ok(args.includes("--die-with-parent"));
    assert.ok(args.includes("--new-session"));
  });

  test("the root is a fresh tmpfs, remounted read-only after every mount", () => {
    const args = options(render());
    assert.ok(hasRun(args, "--tmpfs", "/"));
    assert.ok(args.indexOf("--tmpfs") < args.indexOf("--ro-bind"));
    const remount = args.lastIndexOf("--remount-ro");
    assert.equal(args[remount + 1], "/");
    for (const op of ["--bind", "--ro-bind", "--tmpfs", "--dir", "--ro-bind-data", "--symlink"]) {
      assert.ok(args.lastIndexOf(op) < remount, `${op} comes after the remount`);
    }
  });

  test("the share is bound read-only at /share, and the workspace is the one writable bind", () => {
    const args = options(render());
    assert.ok(hasRun(args, "--ro-bind", REQUEST.share, "/share"));
    assert.ok(hasRun(args, "--bind", REQUEST.workspace, "/workspace"));
    assert.equal(args.filter((a) => a === "--bind").length, 1);
    assert.equal(args.includes("--dev-bind"), false);
    assert.equal(args.includes("--bind-try"), false);
  });

  test("no host home is bound, and the home inside is a tmpfs of its own", () => {
    const args = options(render());
    const sources = bindSources(args);
    assert.ok(sources.length > 5);
    for (const source of sources) {
      const home = HOST.home;
      assert.equal(
        source === home || home.startsWith(source + "/") || source.startsWith(home),
        false,
        source,
      );
      assert.equal(source === "/" || source === "/root" || source === "/home", false, source);
    }
    assert.ok(hasRun(args, "--tmpfs", "/home/agent"));
    assert.ok(hasRun(args, "--tmpfs", "/tmp"));
  });

  test("a bind that would show the host home or system files is refused", () => {
    for (const bind of ["/", "/home", "/home/alice", "/etc", "/root", "/var", "/proc/1"]) {
      assert.throws(() => render({ readOnlyBinds: [bind] }), { code: "BAD_SANDBOX_REQUEST" }, bind);
    }
    assert.throws(() => render({ workspace: "/home/alice" }), { code: "BAD_SANDBOX_REQUEST" });
    assert.throws(() => render({ share: "/" }), { code: "BAD_SANDBOX_REQUEST" });
  });

  test("Node, warden's package and the agent's paths are bound read-only at the same path", () => {
    const args = options(render());
    for (const path of ["/opt/node/bin", ...HOST.packageFiles, "/opt/claude"]) {
      assert.ok(hasRun(args, "--ro-bind", path, path), path);
    }
    // /usr/local/bin/claude is inside /usr, bound already.
    assert.equal(args.includes("/usr/local/bin/claude"), false);
    assert.ok(hasRun(args, "--ro-bind", "/usr", "/usr"));
    assert.ok(hasRun(args, "--symlink", "usr/bin", "/bin"));
  });

  test("each host socket is bound read-only at /run/warden/<name>.sock", () => {
    const args = options(render());
    assert.ok(hasRun(args, "--ro-bind", REQUEST.sockets[0]?.path ?? "", "/run/warden/egress.sock"));
  });

  test("the environment is cleared, then set from a descriptor, never from the argv", () => {
    const command = render();
    const args = options(command);
    assert.ok(args.includes("--clearenv"));
    assert.ok(args.indexOf("--clearenv") < args.indexOf("--args"));
    assert.equal(args.includes("--setenv"), false);
    assert.deepEqual(command.env, {});
    const words = envWords(command);
    const env = new Map<string, string>();
    for (let i = 0; i < words.length; i += 3) {
      assert.equal(words[i], "--setenv");
      env.set(words[i + 1] ?? "", words[i + 2] ?? "");
    }
    assert.equal(env.get("HOME"), "/home/agent");
    assert.equal(env.get("WARDEN_TASK_ID"), REQUEST.env.WARDEN_TASK_ID);
    assert.equal(env.get("PATH")?.startsWith("/opt/node/bin:"), true);
    assert.deepEqual([...env.keys()].sort(), [
      "HOME",
      "LANG",
      "LOGNAME",
      "PATH",
      "SHELL",
      "TMPDIR",
      "USER",
      "WARDEN_GUEST_SOCKETS",
      "WARDEN_TASK_ID",
    ]);
    assert.equal(env.get("WARDEN_GUEST_SOCKETS"), "/run/warden");
    assert.equal(envWords(render({ sockets: [] })).includes("WARDEN_GUEST_SOCKETS"), false);
  });

  test("the runner runs in /workspace, told where everything is", () => {
    const command = render();
    assert.ok(hasRun(options(command), "--chdir", "/workspace"));
    assert.deepEqual(command.args.slice(command.args.indexOf("--") + 1), [
      "/opt/node/bin/node",
      "/opt/warden/dist/guest/main.js",
      "--share",
      "/share",
      "--workspace",
      "/workspace",
      "--scratch",
      "/tmp/warden-scratch",
      "--own-pid-namespace",
    ]);
  });

  test("it is an argv, never a shell string: hostile paths stay one word each", () => {
    const hostile = "/srv/x; rm -rf / $(reboot) `id` 'q' \"d\"";
    const command = render({
      workspace: hostile,
      runner: { program: "/opt/node/bin/node", args: ["a b;c"] },
    });
    assert.equal(command.program, "/usr/bin/bwrap");
    assert.ok(hasRun(command.args, "--bind", hostile, "/workspace"));
    assert.ok(command.args.includes("a b;c"));
    assert.equal(command.args.includes("-c"), false);
    assert.equal(/^(\/bin\/)?(ba|da)?sh$/.test(command.program), false);
  });

  test("generated files come on numbered descriptors: 3 for bwrap's report, 4 to hold it, then data", () => {
    const command = render();
    assert.deepEqual(
      command.fds.map((f) => [f.fd, f.role]),
      [
        [3, "info"],
        [4, "block"],
        [5, "data"],
        [6, "data"],
        [7, "data"],
        [8, "data"],
        [9, "bytes"],
        [10, "data"],
      ],
    );
    assert.ok(hasRun(command.args, "--seccomp", "9"));
    assert.ok(hasRun(command.args, "--info-fd", "3"));
    assert.ok(hasRun(command.args, "--block-fd", "4"));
    assert.ok(hasRun(command.args, "--ro-bind-data", "5", "/etc/passwd"));
    const passwd = command.fds[2];
    if (passwd?.role !== "data") throw new Error("descriptor 5 carries no data");
    assert.match(passwd.text, /^agent:x:1000:1000:[^:]*:\/home\/agent:\/bin\/sh$/m);
    assert.doesNotMatch(passwd.text, /alice/);
  });

  test("only the safe /etc entries of the host are bound, never /etc itself", () => {
    const args = options(render());
    assert.ok(hasRun(args, "--ro-bind", "/etc/ssl/certs", "/etc/ssl/certs"));
    assert.equal(hasRun(args, "--ro-bind", "/etc", "/etc"), false);
    assert.equal(
      args.some((a) => a.startsWith("/etc/ssl/private") || a === "/etc/shadow"),
      false,
    );
  });

  test("the plan is pure: the same request and host give the same command", () => {
    assert.deepEqual(render(), render());
    assert.deepEqual(planBwrap(REQUEST, HOST).limits, {
      memoryBytes: 512 * 1024 * 1024,
      processes: SANDBOX_LIMITS.defaults.processes,
      diskBytes: SANDBOX_LIMITS.defaults.diskBytes,
    });
  });

  test("every bound has a default, and only an explicit 0 removes one", () => {
    assert.deepEqual(planBwrap({ ...REQUEST, limits: {} }, HOST).limits, SANDBOX_LIMITS.defaults);
    assert.deepEqual(
      planBwrap({ ...REQUEST, limits: { memoryBytes: 0, processes: 0, diskBytes: 0 } }, HOST)
        .limits,
      {},
    );
  });

  test("a request no backend may run is refused, saying what is wrong", () => {
    const bad: Partial<SandboxRequest>[] = [
      { taskId: "../up" },
      { share: "relative" },
      { workspace: "/srv/a/../b" },
      { share: "/srv/warden/tasks/a", workspace: "/srv/warden/tasks/a/workspace" },
      { sockets: [{ name: "Egress", path: "/s.sock" }] },
      {
        sockets: [
          { name: "a", path: "/a.sock" },
          { name: "a", path: "/b.sock" },
        ],
      },
      { env: { "A=B": "x" } },
      { env: { A: "x\0y" } },
      { readOnlyBinds: ["/share/x"] },
      { readOnlyBinds: ["/opt/x/"] },
      { limits: { memoryBytes: 1024 } },
      { limits: { processes: 1.5 } },
      { runner: { program: "", args: [] } },
    ];
    for (const request of bad) {
      assert.throws(
        () => render(request),
        { code: "BAD_SANDBOX_REQUEST" },
        JSON.stringify(request),
      );
    }
  });

  test("a missing bwrap still plans (start refuses it) and a bwrap-less host binds real /bin", () => {
    const host: BwrapHost = {
      ...HOST,
      bwrap: null,
      systemDirs: [
        { kind: "dir", path: "/usr" },
        { kind: "dir", path: "/bin" },
      ],
    };
    const command = render({}, host);
    assert.equal(command.program, "bwrap");
    assert.ok(hasRun(command.args, "--ro-bind", "/bin", "/bin"));
  });
});

describe("the bwrap plan of a root warden", () => {
  const ROOT_HOST: BwrapHost = {
    ...HOST,
    home: "/root",
    identity: { kind: "dedicated", uid: 1_879_048_192, gid: 1_879_048_192 },
  };

  /** The sandbox's own bwrap options: after setpriv's `--` and the sandbox's bwrap. */
  function sandboxArgs(command: SandboxCommand): string[] {
    const at = command.args.indexOf("/usr/bin/setpriv");
    const rest = command.args.slice(at);
    return rest.slice(rest.indexOf("--") + 2);
  }

  test("a privileged first stage drops to the dedicated uid with setpriv before the sandbox's bwrap", () => {
    const command = render({}, ROOT_HOST);
    assert.equal(command.program, "/usr/bin/bwrap");
    const setpriv = command.args.indexOf("/usr/bin/setpriv");
    assert.ok(setpriv > 0, "setpriv runs");
    assert.ok(
      hasRun(command.args, "/usr/bin/timeout", "0", "/usr/bin/setpriv", "--reuid", "1879048192"),
    );
    assert.ok(hasRun(command.args, "--regid", "1879048192", "--clear-groups"));
    assert.ok(hasRun(command.args, "--pdeathsig", "SIGKILL", "--", "/usr/bin/bwrap"));
    const stage = command.args.slice(0, setpriv);
    assert.equal(stage.includes("--unshare-user"), false, "stage 1 makes no user namespace");
    assert.ok(hasRun(stage, "--cap-add", "CAP_KILL"));
  });

  test("every task source is shown to the sandbox only through the stage, never by its own path", () => {
    const command = render({}, ROOT_HOST);
    const inner = sandboxArgs(command);
    for (const src of bindSources(inner)) {
      assert.ok(
        src.startsWith("/stage/") ||
          src.startsWith("/usr") ||
          src.startsWith("/etc/") ||
          src === "/proc/sys",
        `the sandbox binds ${src} by its host path`,
      );
    }
    const staged = command.args.slice(0, command.args.indexOf("/usr/bin/timeout"));
    const checks: [string[], string[]][] = [
      [staged, ["--ro-bind", "/opt/claude", "/stage/4"]],
      [inner, ["--ro-bind", "/stage/4", "/opt/claude"]],
      [staged, ["--ro-bind", REQUEST.share, "/stage/5"]],
      [staged, ["--bind", REQUEST.workspace, "/stage/6"]],
      [inner, ["--bind", "/stage/6", "/workspace"]],
    ];
    for (const [args, run] of checks) assert.ok(hasRun(args, ...run), run.join(" "));
  });

  test("the share, the workspace and the sockets are handed to the dedicated uid", () => {
    const plan = planBwrap(REQUEST, ROOT_HOST);
    assert.deepEqual(plan.grants, [
      { path: REQUEST.share, recursive: true },
      { path: REQUEST.workspace, recursive: false },
      { path: "/srv/warden/tasks/a/egress.sock", recursive: false },
    ]);
    assert.ok(plan.readable.includes("/opt/claude"));
    assert.equal(plan.readable.includes(REQUEST.share), false);
  });

  test("/proc/sys is bound read-only over the sandbox's own /proc, so no sysctl is writable", () => {
    const args = options(render());
    const proc = args.findIndex((a, i) => a === "--proc" && args[i + 1] === "/proc");
    const sys = args.findIndex((a, i) => a === "/proc/sys" && args[i - 1] === "--ro-bind");
    assert.ok(proc >= 0 && sys > proc, "/proc/sys is not bound read-only after /proc");
  });

  test("a warden that is not root starts one bwrap, grants nothing and stays itself", () => {
    const plan = planBwrap(REQUEST, HOST);
    assert.equal(plan.stage, null);
    assert.deepEqual(plan.grants, []);
    assert.equal(render().args.includes("/usr/bin/setpriv"), false);
  });

  test("without setpriv a root warden refuses to start a sandbox rather than run it as root", () => {
    assert.throws(() => planBwrap(REQUEST, { ...ROOT_HOST, setpriv: null }), {
      code: "SANDBOX_UNAVAILABLE",
      message: /setpriv is not installed/,
    });
  });

  test("without a seccomp filter for the architecture no sandbox is planned", () => {
    assert.throws(() => planBwrap(REQUEST, { ...HOST, arch: null }), {
      code: "SANDBOX_UNAVAILABLE",
      message: /no seccomp filter/,
    });
  });
});
