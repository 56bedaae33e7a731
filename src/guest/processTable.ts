// The process table as /proc shows it: what the runner needs to find and stop the processes an
// agent left behind. Every read tolerates a process that exits in the middle of it. The reads
// are synchronous on purpose: procfs answers from the kernel without disk I/O, and a scan of a
// few hundred processes takes milliseconds this way but ten times longer through the thread pool.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";

export interface ProcessEntry {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  /** The kernel's one-letter state; "Z" is a zombie, which runs nothing any more. */
  readonly state: string;
  /** The command name; free text chosen by the process. */
  readonly comm: string;
}

/**
 * The inode of the initial PID namespace, fixed by the kernel (PROC_PID_INIT_INO). A runner
 * that sees it is not in a PID namespace of its own, whatever it was told.
 */
export const INITIAL_PID_NAMESPACE = "pid:[4026531836]";

export class ProcessTable {
  constructor(private readonly proc = "/proc") {}

  pids(): number[] {
    const names = readdirSync(this.proc);
    return names.filter((name) => /^[0-9]+$/.test(name)).map(Number);
  }

  /** One process, or undefined when it is gone. */
  entry(pid: number): ProcessEntry | undefined {
    let stat: string;
    try {
      stat = readFileSync(`${this.proc}/${pid}/stat`, "utf8");
    } catch {
      return undefined;
    }
    // The command name is in parentheses and may itself hold spaces and parentheses.
    const open = stat.indexOf("(");
    const close = stat.lastIndexOf(")");
    if (open === -1 || close < open) return undefined;
    const fields = stat.slice(close + 2).split(" ");
    return {
      pid,
      comm: stat.slice(open + 1, close),
      state: fields[0] ?? "?",
      ppid: Number(fields[1]),
      pgid: Number(fields[2]),
    };
  }

  /** Whether the process still runs: it exists and is not a zombie. */
  alive(pid: number): boolean {
    const entry = this.entry(pid);
    return entry !== undefined && entry.state !== "Z";
  }

  /**
   * Whether the process's environment holds exactly `entry` ("NAME=value"); undefined when the
   * environment cannot be read (gone, or not ours to read).
   */
  hasEnvEntry(pid: number, entry: string): boolean | undefined {
    let environ: Buffer;
    try {
      environ = readFileSync(`${this.proc}/${pid}/environ`);
    } catch {
      return undefined;
    }
    // Framed by NULs on both sides so that "A=1" never matches inside "XA=12".
    const framed = Buffer.concat([Buffer.from([0]), environ, Buffer.from([0])]);
    return framed.includes(Buffer.from(`\0${entry}\0`));
  }

  /** `pid` and every process above it, up to the top of the namespace. */
  lineage(pid: number): Set<number> {
    const seen = new Set<number>();
    let current = pid;
    while (current > 0 && !seen.has(current)) {
      seen.add(current);
      const entry = this.entry(current);
      if (entry === undefined) break;
      current = entry.ppid;
    }
    return seen;
  }

  /** The PID namespace the runner is in, as the kernel names it. */
  pidNamespace(): string | undefined {
    try {
      return readlinkSync(`${this.proc}/self/ns/pid`);
    } catch {
      return undefined;
    }
  }
}
