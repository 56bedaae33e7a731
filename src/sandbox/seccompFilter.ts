// The sandbox's seccomp filter as the classic BPF program bwrap's --seccomp loads: pure bytes.
import { DENIED_SYSCALLS, type Refusal, type SeccompArch } from "./syscallTable.js";

/** The filter a plan asks for; rendered into bytes at render time. */
export interface SeccompPlan {
  arch: SeccompArch;
  /** Names from DENIED_SYSCALLS. */
  denied: readonly string[];
}

/** AUDIT_ARCH_* of <linux/audit.h>: the ABI a call came in through. */
const AUDIT_ARCH: Record<SeccompArch, number> = {
  x64: 0xc000003e,
  arm64: 0xc00000b7,
};

/** Calls with this bit are x32 ABI calls on x86-64: a second table nothing here uses. */
const X32_SYSCALL_BIT = 0x40000000;

const ERRNO: Record<Refusal, number> = { EPERM: 1, ENOSYS: 38 };

// Classic BPF opcodes (<linux/bpf_common.h>) and seccomp return values (<linux/seccomp.h>).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const RET_K = 0x06;
const RET_ALLOW = 0x7fff0000;
const RET_ERRNO = 0x00050000;
const RET_KILL_PROCESS = 0x80000000;
/** Offsets in struct seccomp_data. */
const NR_OFFSET = 0;
const ARCH_OFFSET = 4;
/** A conditional jump reaches at most this many instructions ahead. */
const MAX_JUMP = 255;

interface Instruction {
  code: number;
  jt: number;
  jf: number;
  k: number;
}

/** The architecture this process runs on, if warden can filter it. */
export function seccompArch(nodeArch: string = process.arch): SeccompArch | null {
  return nodeArch === "x64" || nodeArch === "arm64" ? nodeArch : null;
}

/**
 * The program: a call through any other ABI (32-bit, x32) kills the process, since the
 * numbers below would not mean the same calls there; each denied call returns its errno;
 * everything else is allowed.
 */
export function seccompProgram(plan: SeccompPlan): Instruction[] {
  const denied = plan.denied.map((name) => {
    const entry = DENIED_SYSCALLS.find((d) => d.name === name);
    if (entry === undefined) throw new Error(`no such denied system call: ${name}`);
    return entry;
  });
  const groups = new Map<Refusal, number[]>();
  for (const entry of denied) {
    const nr = entry.numbers[plan.arch];
    if (nr === undefined) continue;
    const list = groups.get(entry.refusal) ?? [];
    list.push(nr);
    groups.set(entry.refusal, list);
  }
  const refusals = [...groups.keys()];
  const comparisons = [...groups.entries()].flatMap(([refusal, nrs]) =>
    nrs.map((nr) => ({ nr, refusal })),
  );
  const head: Instruction[] = [{ code: LD_W_ABS, jt: 0, jf: 0, k: ARCH_OFFSET }];
  const checkX32 = plan.arch === "x64";
  // Laid out as: head, comparisons, allow, one return per refusal, kill.
  const afterHead = 3 + (checkX32 ? 1 : 0);
  const allowAt = afterHead + comparisons.length;
  const refusalAt = (r: Refusal): number => allowAt + 1 + refusals.indexOf(r);
  const killAt = allowAt + 1 + refusals.length;
  const jump = (from: number, to: number): number => {
    const offset = to - (from + 1);
    if (offset < 0 || offset > MAX_JUMP) throw new Error("the seccomp filter is too long");
    return offset;
  };
  head.push({ code: JEQ_K, jt: 0, jf: jump(1, killAt), k: AUDIT_ARCH[plan.arch] });
  head.push({ code: LD_W_ABS, jt: 0, jf: 0, k: NR_OFFSET });
  if (checkX32) head.push({ code: JGE_K, jt: jump(3, killAt), jf: 0, k: X32_SYSCALL_BIT });
  const program = [...head];
  comparisons.forEach(({ nr, refusal }, i) => {
    const at = afterHead + i;
    program.push({ code: JEQ_K, jt: jump(at, refusalAt(refusal)), jf: 0, k: nr });
  });
  program.push({ code: RET_K, jt: 0, jf: 0, k: RET_ALLOW });
  for (const refusal of refusals)
    program.push({ code: RET_K, jt: 0, jf: 0, k: RET_ERRNO | ERRNO[refusal] });
  program.push({ code: RET_K, jt: 0, jf: 0, k: RET_KILL_PROCESS });
  return program;
}

/** The program as struct sock_filter[]: 8 bytes each, in the machine's (little-endian) order. */
export function seccompBytes(plan: SeccompPlan): Uint8Array {
  const program = seccompProgram(plan);
  const bytes = Buffer.alloc(program.length * 8);
  program.forEach((ins, i) => {
    bytes.writeUInt16LE(ins.code, i * 8);
    bytes.writeUInt8(ins.jt, i * 8 + 2);
    bytes.writeUInt8(ins.jf, i * 8 + 3);
    bytes.writeUInt32LE(ins.k >>> 0, i * 8 + 4);
  });
  return new Uint8Array(bytes);
}
