// How much disk running sandboxes' workspaces take, measured by du while their sandboxes may
// still change them. One meter serves every sandbox of a process: the workspaces asked about
// within one poll are measured together, by one du for bytes and one for entries, instead of two
// du per sandbox. A spawn blocks the event loop for several milliseconds (more as the process
// grows), so a fleet worker with forty running tasks spent most of a core starting du and ran
// its event loop up to 0.8 s late (bench/runningTasks.ts).
import { execFile } from "node:child_process";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { SANDBOX_LIMITS } from "./limits.js";

const run = promisify(execFile);

/** What du found for one workspace; null where it could not say. */
export interface WorkspaceUse {
  /** Bytes allocated (`du -B1`). */
  readonly bytes: number | null;
  /** Files, directories and links (`du --inodes`). */
  readonly entries: number | null;
}

const UNKNOWN: WorkspaceUse = { bytes: null, entries: null };

type Unit = "bytes" | "inodes";

/** What one du printed: its totals, and how far along `dirs` it got. */
interface DuRun {
  /** The totals, by the path du printed. */
  readonly totals: Map<string, number>;
  /**
   * The index in `dirs` of the directory du was walking when it was stopped at its timeout; the
   * length of `dirs` when it ran to its end.
   */
  readonly reached: number;
}

/**
 * `du -s` totals for each of `dirs` in one process, by the path it printed. du walks with
 * openat and never follows a link (-P), and -x keeps it on each directory's file system, so a
 * tree a sandbox rearranges while it is read can neither lead it elsewhere nor hide from it. Each
 * total ends in a NUL (-0), so no path can forge another's line. du prints each directory's
 * total once it has walked it, in the order given, so a du stopped at its timeout has walked
 * those before the last it printed.
 */
async function duTotals(dirs: readonly string[], unit: Unit, timeoutMs: number): Promise<DuRun> {
  const flag = unit === "bytes" ? "-B1" : "--inodes";
  let stdout: string;
  let stopped = false;
  try {
    ({ stdout } = await run("du", ["-s", "-x", "-P", "-0", flag, "--", ...dirs], {
      timeout: timeoutMs,
      maxBuffer: SANDBOX_LIMITS.measureOutputBytes,
    }));
  } catch (error) {
    // du reports files removed while it walks, and exits 1; its totals still count the rest.
    // After a timeout (or any signal), the totals printed before it still hold.
    const failed = error as { stdout?: unknown; killed?: unknown; signal?: unknown };
    stopped = failed.killed === true || typeof failed.signal === "string";
    stdout = typeof failed.stdout === "string" ? failed.stdout : "";
  }
  const index = new Map(dirs.map((dir, i) => [dir, i]));
  const totals = new Map<string, number>();
  let last = -1;
  for (const record of stdout.split("\0")) {
    const tab = record.indexOf("\t");
    const total = Number(record.slice(0, tab));
    const at = index.get(record.slice(tab + 1));
    if (tab <= 0 || !Number.isSafeInteger(total) || at === undefined) continue;
    totals.set(record.slice(tab + 1), total);
    last = Math.max(last, at);
  }
  return { totals, reached: stopped ? last + 1 : dirs.length };
}

/**
 * The bytes and entries of each of `dirs`, by two du processes per batch of them. A du stopped
 * at its timeout leaves the directory it was walking without a total, and those after it, which
 * it never reached, are measured by the next pair at once: many large workspaces that together
 * take longer than the timeout are still measured together, a timeout's worth at a time.
 */
async function measureTogether(
  dirs: readonly string[],
  timeoutMs: number,
): Promise<Map<string, WorkspaceUse>> {
  const found = new Map<string, WorkspaceUse>();
  // Each pass ends at least one directory of every batch, so the passes end.
  for (let pending = [...dirs]; pending.length > 0;) {
    const batches: string[][] = [];
    for (let at = 0; at < pending.length; at += SANDBOX_LIMITS.measureBatchDirs)
      batches.push(pending.slice(at, at + SANDBOX_LIMITS.measureBatchDirs));
    const unreached: string[] = [];
    await Promise.all(
      batches.map(async (batch) => {
        const [bytes, entries] = await Promise.all([
          duTotals(batch, "bytes", timeoutMs),
          duTotals(batch, "inodes", timeoutMs),
        ]);
        const reached = Math.min(bytes.reached, entries.reached);
        for (const [i, dir] of batch.entries()) {
          if (i > reached) unreached.push(dir);
          else
            found.set(dir, {
              bytes: bytes.totals.get(dir) ?? null,
              entries: entries.totals.get(dir) ?? null,
            });
        }
      }),
    );
    pending = unreached;
  }
  return found;
}

function complete(use: WorkspaceUse): boolean {
  return use.bytes !== null && use.entries !== null;
}

/** One workspace's wait for a round: the answer given out, and how it is settled. */
interface Waiting {
  readonly answer: Promise<WorkspaceUse>;
  readonly tell: (use: WorkspaceUse) => void;
}

/** The workspaces that wait for the next round. */
type Round = Map<string, Waiting>;

export interface WorkspaceMeterOptions {
  /** The least time between the starts of two rounds; SANDBOX_LIMITS.boundPollMs. */
  readonly gapMs?: number;
  /** How long one du may walk before it is stopped; SANDBOX_LIMITS.measureMs. */
  readonly timeoutMs?: number;
}

/**
 * Measures workspaces in rounds: a round starts at most once per gap and never while another
 * runs, and takes every workspace asked about until it starts, in one du pair (more when they
 * do not fit one timeout: measureTogether). A workspace whose totals did not come back from it
 * (too large to walk in time, or unreadable) is measured again on its own at once, beside the
 * rounds; one whose own measurement also failed stays apart for as long as it is asked about.
 * So one task's workspace costs the others at most one late round, never their measurements.
 */
export class WorkspaceMeter {
  readonly #gapMs: number;
  readonly #timeoutMs: number;
  #waiting: Round | undefined;
  #lastStart = Number.NEGATIVE_INFINITY;
  /** The shared du of the round that runs; the next round starts after it. */
  #running: Promise<void> = Promise.resolve();
  /** Measurements of one workspace on its own that still run; an ask joins them. */
  readonly #solo = new Map<string, Promise<WorkspaceUse>>();
  /** Workspaces measured apart from the rounds: their own measurement failed. */
  #apart = new Set<string>();

  constructor(options: WorkspaceMeterOptions = {}) {
    this.#gapMs = options.gapMs ?? SANDBOX_LIMITS.boundPollMs;
    this.#timeoutMs = options.timeoutMs ?? SANDBOX_LIMITS.measureMs;
  }

  /** The workspace's use, as the next round (or its own measurement, still running) finds it. */
  measure(workspace: string): Promise<WorkspaceUse> {
    const solo = this.#solo.get(workspace);
    if (solo !== undefined) return solo;
    let round = this.#waiting;
    if (round === undefined) {
      const next: Round = new Map();
      round = next;
      this.#waiting = next;
      const wait = Math.max(0, this.#lastStart + this.#gapMs - performance.now());
      setTimeout(() => {
        void this.#start(next);
      }, wait);
    }
    let waiting = round.get(workspace);
    if (waiting === undefined) {
      let tell: (use: WorkspaceUse) => void = () => undefined;
      const answer = new Promise<WorkspaceUse>((resolve) => (tell = resolve));
      waiting = { answer, tell };
      round.set(workspace, waiting);
    }
    return waiting.answer;
  }

  async #start(round: Round): Promise<void> {
    // Workspaces asked about while the previous round's du still runs join this one.
    await this.#running;
    this.#waiting = undefined;
    this.#lastStart = performance.now();
    const shared = this.#measureRound(round);
    this.#running = shared;
    await shared;
  }

  async #measureRound(round: Round): Promise<void> {
    const dirs = [...round.keys()];
    // Only workspaces still asked about, or still measured, stay apart: the others have ended.
    this.#apart = new Set([...this.#apart].filter((dir) => round.has(dir) || this.#solo.has(dir)));
    const together = dirs.filter((dir) => !this.#apart.has(dir));
    const found =
      together.length === 0
        ? new Map<string, WorkspaceUse>()
        : await measureTogether(together, this.#timeoutMs);
    for (const dir of dirs) {
      const tell = round.get(dir)?.tell ?? (() => undefined);
      const use = found.get(dir);
      if (use !== undefined && complete(use)) tell(use);
      else void this.#measureAlone(dir).then(tell);
    }
  }

  /** One workspace by itself, beside the rounds; apart from them after a failure. */
  #measureAlone(dir: string): Promise<WorkspaceUse> {
    const solo = measureTogether([dir], this.#timeoutMs).then((found) => {
      const use = found.get(dir) ?? UNKNOWN;
      if (!complete(use)) this.#apart.add(dir);
      this.#solo.delete(dir);
      return use;
    });
    this.#solo.set(dir, solo);
    return solo;
  }
}
