// The seccomp filter, tested pure: its system call numbers against the kernel's headers, and
// the bytes bwrap is handed decoded and run by the kernel's rules for classic BPF.
import { strict as assert } from "node:assert";
import { existsSync, readFileSync } from "node:fs";
import { constants } from "node:os";
import { describe, test } from "node:test";
import { planBwrap } from "../../src/sandbox/planBwrap.js";
import { renderBwrap } from "../../src/sandbox/renderBwrap.js";
import type { BwrapHost } from "../../src/sandbox/bwrapHost.js";
import { DENIED_SYSCALLS, type SeccompArch } from "../../src/sandbox/syscallTable.js";
import { skipWhen, type SkipReason } from "../support/skipWhen.js";

/** The headers that number each architecture's calls (Debian's linux-libc-dev). */
const HEADERS: Record<SeccompArch, string[]> = {
  x64: ["/usr/include/x86_64-linux-gnu/asm/unistd_64.h", "/usr/include/asm/unistd_64.h"],
  arm64: ["/usr/include/asm-generic/unistd.h"],
};

/** AUDIT_ARCH_* of <linux/audit.h>. */
const AUDIT_ARCH = {
  x64: 0xc000003e,
  arm64: 0xc00000b7,
  i386: 0x40000003,
  arm: 0x40000028,
} as const;

/** <linux/seccomp.h>: the action in the high bits, the data (an errno) in the low 16. */
const RET = { killProcess: 0x80000000, errno: 0x00050000, allow: 0x7fff0000, data: 0xffff };
const X32_BIT = 0x40000000;

/** <linux/bpf_common.h>: the only instructions the filter may use. */
const OP = { ldWAbs: 0x20, jeqK: 0x15, jgeK: 0x35, retK: 0x06 };
/** struct seccomp_data: nr at 0, arch at 4. */
const OFFSET = { nr: 0, arch: 4 };

/** The numbers a header defines, by call name: `__NR_name N` and `__NR3264_name N`. */
function headerNumbers(arch: SeccompArch): Map<string, number> | null {
  const path = HEADERS[arch].find((p) => existsSync(p));
  if (path === undefined) return null;
  const numbers = new Map<string, number>();
  for (const match of readFileSync(path, "utf8").matchAll(
    /^#define __NR(?:3264)?_(\w+)\s+(\d+)\s*$/gm,
  )) {
    const [, name = "", nr = ""] = match;
    numbers.set(name, Number(nr));
  }
  return numbers;
}

function headerSkip(arch: SeccompArch): SkipReason {
  return skipWhen(
    HEADERS[arch].some((p) => existsSync(p))
      ? false
      : `no ${arch} kernel header (${HEADERS[arch].join(" or ")}): apt-get install linux-libc-dev`,
  );
}

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** struct sock_filter[]: u16 code, u8 jt, u8 jf, u32 k, little-endian as on both machines. */
function decode(bytes: Uint8Array): Instruction[] {
  assert.equal(bytes.length % 8, 0, "the filter is not whole 8-byte instructions");
  const buffer = Buffer.from(bytes);
  const program: Instruction[] = [];
  for (let at = 0; at < buffer.length; at += 8) {
    program.push({
      code: buffer.readUInt16LE(at),
      jt: buffer.readUInt8(at + 2),
      jf: buffer.readUInt8(at + 3),
      k: buffer.readUInt32LE(at + 4),
    });
  }
  return program;
}

/** Runs the program as the kernel would for one call; refuses anything it could not load. */
function runFilter(program: Instruction[], call: { nr: number; arch: number }): number {
  let a = 0;
  let pc = 0;
  for (;;) {
    const ins = program[pc];
    assert.ok(ins !== undefined, `the filter runs off its end at ${pc}`);
    switch (ins.code) {
      case OP.ldWAbs:
        assert.ok(ins.k === OFFSET.nr || ins.k === OFFSET.arch, `a load of offset ${ins.k}`);
        a = (ins.k === OFFSET.nr ? call.nr : call.arch) >>> 0;
        pc += 1;
        break;
      case OP.jeqK:
        pc += 1 + (a === ins.k >>> 0 ? ins.jt : ins.jf);
        break;
      case OP.jgeK:
        pc += 1 + (a >= ins.k >>> 0 ? ins.jt : ins.jf);
        break;
      case OP.retK:
        return ins.k >>> 0;
      default:
        assert.fail(`instruction ${pc} has an opcode the filter should not use: ${ins.code}`);
    }
  }
}

/** A host as planBwrap sees it, for the architecture under test. */
function hostFor(arch: SeccompArch): BwrapHost {
  return {
    bwrap: "/usr/bin/bwrap",
    home: "/home/alice",
    systemDirs: [{ kind: "dir", path: "/usr" }],
    etcEntries: [],
    nodeDir: "/usr/bin",
    packageFiles: [],
    identity: { kind: "own", uid: 1001, gid: 1001 },
    setpriv: "/usr/bin/setpriv",
    timeout: "/usr/bin/timeout",
    arch,
  };
}

/** The filter exactly as a sandbox gets it: planned, rendered, and passed to --seccomp. */
function renderedFilter(arch: SeccompArch): Instruction[] {
  const command = renderBwrap(
    planBwrap(
      {
        taskId: "seccomp-test",
        share: "/srv/t/share",
        workspace: "/srv/t/workspace",
        sockets: [],
        runner: { program: "/usr/bin/true", args: [] },
        readOnlyBinds: [],
        env: {},
        limits: {},
      },
      hostFor(arch),
    ),
  );
  const fd = command.args[command.args.indexOf("--seccomp") + 1];
  const bytes = command.fds.find((f) => String(f.fd) === fd);
  assert.ok(bytes?.role === "bytes", "bwrap is not handed the filter with --seccomp");
  return decode(bytes.bytes);
}

/**
 * What a denied call must answer, decided here and not read from the table: ENOSYS for
 * io_uring, so that runtimes fall back to plain reads and writes; EPERM for the rest.
 */
function expectedErrno(name: string): number {
  return name.startsWith("io_uring_") ? constants.errno.ENOSYS : constants.errno.EPERM;
}

/** Calls kernel escapes start from, named here so that dropping one from the table is seen. */
const MUST_DENY = [
  "keyctl",
  "add_key",
  "request_key",
  "bpf",
  "userfaultfd",
  "perf_event_open",
  "mount",
  "umount2",
  "pivot_root",
  "unshare",
  "setns",
  "open_by_handle_at",
  "init_module",
  "finit_module",
  "kexec_load",
  "kexec_file_load",
  "io_uring_setup",
  "io_uring_enter",
  "io_uring_register",
];

describe("the seccomp filter's system call numbers", () => {
  test("the calls kernel escapes start from are all denied, on both architectures", () => {
    for (const name of MUST_DENY) {
      const entry = DENIED_SYSCALLS.find((d) => d.name === name);
      assert.ok(entry !== undefined, `${name} is not denied`);
      assert.ok(entry.numbers.x64 !== undefined && entry.numbers.arm64 !== undefined, name);
    }
  });

  for (const arch of ["x64", "arm64"] as const) {
    test(
      `every denied call has its ${arch} number from the kernel's headers, and none where ${arch} lacks the call`,
      { skip: headerSkip(arch) },
      () => {
        const numbers = headerNumbers(arch);
        assert.ok(numbers !== null && numbers.size > 250, `too few calls in the ${arch} header`);
        for (const denied of DENIED_SYSCALLS) {
          assert.equal(denied.numbers[arch], numbers.get(denied.name), `${denied.name} on ${arch}`);
        }
      },
    );
  }
});

describe("the seccomp filter's program", () => {
  for (const arch of ["x64", "arm64"] as const) {
    const denied = DENIED_SYSCALLS.filter((d) => d.numbers[arch] !== undefined);

    test(`on ${arch}: it loads the architecture first and kills a call of any other`, () => {
      const program = renderedFilter(arch);
      assert.deepEqual(program[0], { code: OP.ldWAbs, jt: 0, jf: 0, k: OFFSET.arch });
      const check = program[1];
      assert.deepEqual(check && { code: check.code, k: check.k }, {
        code: OP.jeqK,
        k: AUDIT_ARCH[arch],
      });
      const target = program[1 + 1 + (check?.jf ?? 0)];
      assert.deepEqual(target, { code: OP.retK, jt: 0, jf: 0, k: RET.killProcess });
      const others = Object.entries(AUDIT_ARCH).filter(([name]) => name !== arch);
      for (const [name, auditArch] of others) {
        assert.equal(runFilter(program, { nr: 0, arch: auditArch }), RET.killProcess, name);
        assert.equal(runFilter(program, { nr: 39, arch: auditArch }), RET.killProcess, name);
      }
    });

    test(`on ${arch}: each denied call jumps to a return of its errno, and the fallthrough allows`, () => {
      const program = renderedFilter(arch);
      for (const call of denied) {
        const nr = call.numbers[arch] ?? -1;
        const at = program.findIndex(
          (ins) => ins.code === OP.jeqK && ins.k === nr && ins !== program[1],
        );
        assert.ok(at > 1, `no comparison with ${call.name} (${nr})`);
        const target = program[at + 1 + (program[at]?.jt ?? 0)];
        assert.deepEqual(
          target,
          { code: OP.retK, jt: 0, jf: 0, k: RET.errno | expectedErrno(call.name) },
          `${call.name} jumps to ${JSON.stringify(target)}`,
        );
      }
      const lastComparison = program.findLastIndex((ins) => ins.code === OP.jeqK);
      assert.deepEqual(program[lastComparison + 1], { code: OP.retK, jt: 0, jf: 0, k: RET.allow });
    });

    test(`on ${arch}: run by the kernel's rules, it refuses exactly the denied calls${arch === "x64" ? " and kills every x32 call" : ""}`, () => {
      const program = renderedFilter(arch);
      const refusals = new Map(denied.map((d) => [d.numbers[arch], expectedErrno(d.name)]));
      for (let nr = 0; nr < 1024; nr++) {
        const result = runFilter(program, { nr, arch: AUDIT_ARCH[arch] });
        const errno = refusals.get(nr);
        const expected = errno === undefined ? RET.allow : RET.errno | errno;
        assert.equal(result, expected, `call ${nr} gives ${result.toString(16)}`);
        if (arch === "x64") {
          const x32 = runFilter(program, { nr: nr | X32_BIT, arch: AUDIT_ARCH.x64 });
          assert.equal(x32, RET.killProcess, `x32 call ${nr} gives ${x32.toString(16)}`);
        }
      }
      const highest = runFilter(program, { nr: 0xffffffff, arch: AUDIT_ARCH[arch] });
      assert.equal(highest, arch === "x64" ? RET.killProcess : RET.allow);
    });
  }
});
