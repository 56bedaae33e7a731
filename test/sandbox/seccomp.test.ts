// The seccomp filter at work inside a real bwrap sandbox: the calls it denies fail with their
// errno, and an ordinary workload (git, Node) does not notice it.
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { describe, test } from "node:test";
import { seccompArch } from "../../src/sandbox/seccompFilter.js";
import { DENIED_SYSCALLS } from "../../src/sandbox/syscallTable.js";
import { skipWhen } from "../support/skipWhen.js";
import { finish, NEEDS_BWRAP, request, useBwrapSandbox } from "./sandboxFixture.js";

/** The host's Python, which the sandbox sees since /usr is bound: it can make raw calls. */
const PYTHON = "/usr/bin/python3";

const ARCH = seccompArch();

/**
 * Each call with arguments the kernel itself would refuse with another errno than the filter's
 * (a bad address, an unknown command), so a pass cannot come from the kernel's own checks.
 */
const CALLS: Record<string, number[]> = {
  keyctl: [9999, 0, 0],
  mount: [0, 0, 0, 0, 0],
  bpf: [9999, 0, 0],
  perf_event_open: [0, 0, -1, -1, 0],
  userfaultfd: [3],
  io_uring_setup: [0, 0],
};

/** Prints {name: errno name or "ok"} for each call of argv[1] (JSON {name: [nr, ...args]}). */
const CALLER = `
import ctypes, errno, json, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
out = {}
for name, (nr, *args) in json.loads(sys.argv[1]).items():
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    out[name] = errno.errorcode.get(ctypes.get_errno(), "?") if r == -1 else "ok"
print(json.dumps(out))
`;

describe("the seccomp filter inside a bwrap sandbox", { skip: NEEDS_BWRAP }, () => {
  const suite = useBwrapSandbox();

  test("the runner and what it starts run under a filter: /proc/self/status says Seccomp: 2", async () => {
    const run = await suite.inside(
      "grep -E '^(Seccomp|NoNewPrivs):' /proc/self/status; sh -c 'grep ^Seccomp: /proc/self/status'",
    );
    assert.equal(run.stdout, "NoNewPrivs:\t1\nSeccomp:\t2\nSeccomp:\t2\n", run.stderr);
  });

  test("unshare -U and unshare -m fail inside with Operation not permitted", async () => {
    const run = await suite.inside("unshare -U true; echo user=$?; unshare -m true; echo mount=$?");
    assert.match(run.stdout, /^user=[1-9]\d*\nmount=[1-9]\d*\n$/);
    const refusals = run.stderr.match(/unshare failed: Operation not permitted/g) ?? [];
    assert.equal(refusals.length, 2, run.stderr);
  });

  test(
    "keyctl, mount, bpf, perf_event_open and userfaultfd get EPERM, io_uring_setup ENOSYS, and getpid works",
    {
      skip: skipWhen(
        existsSync(PYTHON) ? false : `${PYTHON} is not installed: apt-get install python3`,
      ),
    },
    async () => {
      assert.ok(ARCH !== null, "the test needs an architecture warden filters");
      const calls: Record<string, number[]> = {};
      for (const [name, args] of Object.entries(CALLS)) {
        const nr = DENIED_SYSCALLS.find((d) => d.name === name)?.numbers[ARCH];
        assert.ok(nr !== undefined, `${name} has no number on ${ARCH}`);
        calls[name] = [nr, ...args];
      }
      calls.getpid = [ARCH === "x64" ? 39 : 172];
      const run = await finish(
        await suite.backend.start(
          request(suite.dirs, { program: PYTHON, args: ["-c", CALLER, JSON.stringify(calls)] }),
        ),
      );
      assert.equal(run.exit.code, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), {
        keyctl: "EPERM",
        mount: "EPERM",
        bpf: "EPERM",
        perf_event_open: "EPERM",
        userfaultfd: "EPERM",
        io_uring_setup: "ENOSYS",
        getpid: "ok",
      });
    },
  );

  test("an ordinary workload still works: git init and commit, and Node writing, reading and spawning", async () => {
    const node = `
      const fs = require("node:fs");
      const { execFileSync } = require("node:child_process");
      fs.writeFileSync("/tmp/n.txt", "from node");
      fs.promises.readFile("/tmp/n.txt", "utf8").then((text) => {
        const sh = execFileSync("/bin/sh", ["-c", "echo spawned"], { encoding: "utf8" }).trim();
        console.log(text + " " + sh);
      });`;
    const run = await suite.inside(
      [
        "set -e",
        "cd /tmp && git init -q repo && cd repo",
        "echo hello > a.txt && git add a.txt",
        "git -c user.name=agent -c user.email=agent@example.invalid commit -q -m first",
        "git log --format=%s",
        `${process.execPath} -e '${node.replaceAll("'", "'\\''")}'`,
      ].join("\n"),
    );
    assert.equal(run.exit.code, 0, run.stderr);
    assert.equal(run.stdout, "first\nfrom node spawned\n", run.stderr);
  });
});
