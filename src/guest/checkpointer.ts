// The runner's checkpoints while the agent runs: at each turn boundary (or on a timer for a
// command), throttled to a small share of the agent's time, the workspace's changes and the
// agent's session file go to the host on a connection of their own, so a big checkpoint never
// holds up the agent's events or its messages. Checkpoints are a help, never a condition: one
// that fails is named once and the next boundary tries again.
import { open, rm, stat, type FileHandle } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  errorMessage,
  NO_TRACE,
  startDeadline,
  within,
  type Deadline,
  type PhaseTrace,
} from "../lang/index.js";
import { CHECKPOINT_LIMITS, type CheckpointPart } from "../protocol/index.js";
import {
  checkpointWorkspace,
  openCheckpointRepo,
  type CheckpointRepo,
  type WorkspaceCheckpoint,
} from "./checkpointGit.js";
import type { HostChannel } from "./hostChannel.js";
import { GUEST_CHECKPOINT_LIMITS } from "./limits.js";

export interface CheckpointerInput {
  /** A channel of the checkpoints' own (a second connection to the host). */
  readonly channel: HostChannel;
  readonly repo: CheckpointRepo;
  readonly gitEnv: Readonly<Record<string, string>>;
  /** Where the bundle is written before it is sent. */
  readonly scratch: string;
  /** The session file of the agent's current session, when it names one. */
  readonly sessionFile: () => Promise<{ id: string; path: string } | undefined>;
  /**
   * Whether the agent keeps a session at all. One that keeps none (a command) gets no checkpoint
   * as it ends: its results carry the workspace, and a resumed command runs again either way.
   */
  readonly keepsSession: boolean;
  readonly progress: (line: string) => void;
  readonly warn: (text: string) => void;
  /** Aborts a checkpoint in progress: the runner was told to stop. */
  readonly stop: AbortSignal;
  readonly now?: () => number;
  /** Times each checkpoint's steps when the task is traced. */
  readonly trace?: PhaseTrace;
}

/**
 * When the next checkpoint may start: once the checkpoints so far are at most `share` of the
 * time since `startedAt`, and never sooner than `minIntervalMs` after the last one ended. Pure.
 */
export function nextCheckpointAt(input: {
  startedAt: number;
  spentMs: number;
  lastEndedAt: number | undefined;
  share: number;
  minIntervalMs: number;
}): number {
  const byShare = input.startedAt + input.spentMs / input.share;
  const byInterval =
    input.lastEndedAt === undefined ? input.startedAt : input.lastEndedAt + input.minIntervalMs;
  return Math.max(byShare, byInterval);
}

export class Checkpointer {
  readonly #input: CheckpointerInput;
  readonly #now: () => number;
  readonly #startedAt: number;
  #spentMs = 0;
  #lastEndedAt: number | undefined;
  #turn = 0;
  /** The runner closed the agent's input: the agent's exit, and its last checkpoint, are near. */
  #ending = false;
  #running: Promise<void> | undefined;
  /** A boundary came while one ran: one more is taken after it. */
  #again = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;
  #failures = 0;
  /** How many checkpoints the host kept, and their cost, for the runner's progress. */
  #kept = 0;
  /**
   * What the last kept checkpoint covered: the turn boundaries seen, the session's size, and
   * whether it began after the agent's input was closed.
   */
  #covered: { turn: number; sessionBytes: number; afterEnding: boolean } | undefined;
  /** The checkpoint repository being made ahead of the first checkpoint (prepare). */
  #repoReady: Promise<void> | undefined;

  constructor(input: CheckpointerInput) {
    this.#input = input;
    this.#now = input.now ?? (() => performance.now());
    this.#startedAt = this.#now();
  }

  /** A turn boundary: a checkpoint now, or as soon as the throttle allows. */
  boundary(): void {
    if (this.#ending) {
      // The agent went on after all: its checkpoints keep their usual pace.
      this.#ending = false;
      this.#cancelTimer();
    }
    this.#turn++;
    this.#checkpointSoon();
  }

  /**
   * The runner has closed the agent's input: nothing more is asked of it, and it is about to
   * exit. A checkpoint begun before it never spares the last one, and a checkpoint not yet begun
   * waits GUEST_CHECKPOINT_LIMITS.endingGraceMs: the last checkpoint, taken at the exit, holds
   * the end without walking the workspace again.
   */
  ending(): void {
    this.#cancelTimer();
    this.#ending = true;
    this.#checkpointSoon();
  }

  /** The checkpoint waiting for its turn is not taken. */
  #cancelTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** A checkpoint after the throttle's wait, or after the one in progress. */
  #checkpointSoon(): void {
    if (this.#closed) return;
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#schedule();
  }

  /**
   * The agent has exited and what it left behind is about to be stopped: reapStragglers stops
   * every process of the sandbox outside the runner's own line, the git of a checkpoint in
   * progress among them. That checkpoint is let finish first, within
   * GUEST_CHECKPOINT_LIMITS.finalMs; none is scheduled again until the next turn boundary.
   */
  async settle(): Promise<void> {
    this.#cancelTimer();
    this.#again = false;
    const running = this.#running;
    if (running === undefined) return;
    await within(running, GUEST_CHECKPOINT_LIMITS.finalMs);
  }

  /**
   * The agent has exited: waits for the checkpoint in progress, then takes the last one at once
   * (the conversation's end, which a continuation resumes), within its bound. It is spared when
   * the last kept checkpoint began after the agent's last turn boundary and its session has not
   * grown since: that checkpoint already holds the end.
   *
   * With `finished`, the runner's finishing of the workspace's git (which runs meanwhile) gives
   * the workspace part: the session is sent while it runs, and the workspace is not walked a
   * second time. When it gives none, the checkpoint takes the workspace itself.
   */
  async final(finished?: Promise<WorkspaceCheckpoint | undefined>): Promise<void> {
    if (this.#closed) return;
    this.#cancelTimer();
    this.#again = false;
    const last = (async () => {
      await this.#running;
      if (this.#input.stop.aborted || !this.#input.keepsSession) return;
      if (this.#coversEnd(await this.#sessionBytes())) {
        this.#input.progress("the last checkpoint already holds the agent's end");
        return;
      }
      await this.#take(finished);
    })();
    await within(last, GUEST_CHECKPOINT_LIMITS.finalMs);
    this.close();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    if (this.#kept > 0) {
      this.#input.progress(
        `${this.#kept} checkpoints kept, ${Math.round(this.#spentMs)} ms in all`,
      );
    }
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    const at = nextCheckpointAt({
      startedAt: this.#startedAt,
      spentMs: this.#spentMs,
      lastEndedAt: this.#lastEndedAt,
      share: GUEST_CHECKPOINT_LIMITS.timeShare,
      minIntervalMs: GUEST_CHECKPOINT_LIMITS.minIntervalMs,
    });
    const delay = this.#ending
      ? GUEST_CHECKPOINT_LIMITS.endingGraceMs
      : GUEST_CHECKPOINT_LIMITS.boundaryDelayMs;
    const wait = Math.max(delay, at - this.#now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.#closed) return;
      this.#running = this.#take().finally(() => {
        this.#running = undefined;
        if (this.#again && !this.#closed) {
          this.#again = false;
          this.#schedule();
        }
      });
    }, wait);
    this.#timer.unref();
  }

  #coversEnd(sessionBytes: number): boolean {
    return (
      this.#covered !== undefined &&
      this.#covered.turn === this.#turn &&
      this.#covered.sessionBytes === sessionBytes &&
      (this.#covered.afterEnding || !this.#ending)
    );
  }

  /** The size of the current session file now (0 when there is none). */
  async #sessionBytes(): Promise<number> {
    const session = await this.#input.sessionFile();
    if (session === undefined) return 0;
    return (await stat(session.path).catch(() => undefined))?.size ?? 0;
  }

  /** Takes one checkpoint and sends it; a failure is a warning (the first) or progress. */
  async #take(finished?: Promise<WorkspaceCheckpoint | undefined>): Promise<void> {
    const started = this.#now();
    // Read before the checkpoint begins, so that anything after it counts as not covered.
    const turn = this.#turn;
    const afterEnding = this.#ending;
    const sessionBytes = await this.#sessionBytes();
    try {
      const seq = await this.#send(finished);
      this.#covered = { turn, sessionBytes, afterEnding };
      this.#kept++;
      this.#input.progress(`checkpoint ${seq} kept (turn boundary ${this.#turn})`);
    } catch (error) {
      this.#failures++;
      const text = `a checkpoint was not kept: ${errorMessage(error)}`;
      if (this.#failures === 1) this.#input.warn(text);
      else this.#input.progress(text);
    } finally {
      const ended = this.#now();
      this.#spentMs += ended - started;
      this.#lastEndedAt = ended;
    }
  }

  /**
   * Makes the runner's checkpoint repository now, while the agent runs, so that the first
   * checkpoint (for an agent that keeps a session, at the latest its end) does not wait for it.
   * A failure here is met again, and reported, by that checkpoint.
   */
  prepare(): void {
    if (this.#repoReady !== undefined) return;
    const { repo, gitEnv } = this.#input;
    const deadline = this.#gitDeadline();
    this.#repoReady = openCheckpointRepo(repo, { env: gitEnv, signal: deadline.signal })
      .catch(() => undefined)
      .finally(deadline.clear);
  }

  /** The limit on one checkpoint's git work, or the runner's stop, whichever comes first. */
  #gitDeadline(): Deadline {
    const limitMs = GUEST_CHECKPOINT_LIMITS.gitMs;
    return startDeadline(
      limitMs,
      this.#input.stop,
      () => new Error(`a checkpoint's git work took over ${limitMs / 1000} s`),
    );
  }

  /**
   * Sends one checkpoint: the workspace's changes and the session, then its end. Taken while the
   * agent runs, the workspace goes first, as it was when the checkpoint began. Taken at the end
   * from what finishing made, the session goes first, while finishing still runs: the agent is
   * gone, so neither changes any more.
   */
  async #send(finished?: Promise<WorkspaceCheckpoint | undefined>): Promise<number> {
    const trace = this.#input.trace ?? NO_TRACE;
    if (finished === undefined) {
      const workspace = await this.#ownWorkspace(trace);
      const endSend = trace.start("checkpoint: send its files");
      const bundleBytes = await this.#sendBundle(workspace);
      const session = await this.#sendSession();
      endSend();
      return this.#end(trace, workspace, bundleBytes, session);
    }
    const session = await trace.around("checkpoint: send the session", this.#sendSession());
    const workspace =
      (await trace.around("checkpoint: wait for finishing", finished)) ??
      (await this.#ownWorkspace(trace));
    const bundleBytes = await trace.around(
      "checkpoint: send the bundle",
      this.#sendBundle(workspace),
    );
    return this.#end(trace, workspace, bundleBytes, session);
  }

  /** The workspace's changes, read by the checkpoints' own repository and index. */
  async #ownWorkspace(trace: PhaseTrace): Promise<WorkspaceCheckpoint> {
    const { repo, gitEnv, scratch } = this.#input;
    const file = join(scratch, "checkpoint.bundle");
    await rm(file, { force: true });
    await this.#repoReady;
    const deadline = this.#gitDeadline();
    return trace
      .around(
        "checkpoint: the workspace's changes",
        checkpointWorkspace(repo, { env: gitEnv, signal: deadline.signal }, file),
      )
      .finally(deadline.clear);
  }

  async #sendBundle(workspace: WorkspaceCheckpoint): Promise<number> {
    return workspace.bundle === undefined ? 0 : this.#sendFile("bundle", workspace.bundle, false);
  }

  /** Sends the session file, when the agent names one that exists: its id and bytes sent. */
  async #sendSession(): Promise<{ id: string; bytes: number } | undefined> {
    const session = await this.#input.sessionFile();
    if (session === undefined || !existsSync(session.path)) return undefined;
    return { id: session.id, bytes: await this.#sendFile("session", session.path, true) };
  }

  async #end(
    trace: PhaseTrace,
    workspace: WorkspaceCheckpoint,
    bundleBytes: number,
    session: { id: string; bytes: number } | undefined,
  ): Promise<number> {
    const sessionBytes = session?.bytes ?? 0;
    const answer = await trace.around(
      "checkpoint: the host keeps it",
      this.#input.channel.request({
        op: "checkpoint.end",
        head: workspace.head,
        ...(workspace.tip === undefined ? {} : { tip: workspace.tip }),
        ...(session === undefined || sessionBytes === 0 ? {} : { sessionId: session.id }),
        turn: this.#turn,
        bundleBytes,
        sessionBytes,
      }),
    );
    return answer.seq;
  }

  /**
   * Sends a file in pieces, read one at a time. A session file the agent is still appending to is
   * sent up to its last whole line as it was when the send began. Returns the bytes sent.
   */
  async #sendFile(part: CheckpointPart, path: string, wholeLines: boolean): Promise<number> {
    const max = part === "bundle" ? CHECKPOINT_LIMITS.bundleBytes : CHECKPOINT_LIMITS.sessionBytes;
    const handle = await open(path, "r");
    try {
      const size = (await handle.stat()).size;
      if (size > max) throw new Error(`its ${part} is ${size} bytes, over ${max}`);
      const end = wholeLines ? await lastLineEnd(handle, size) : size;
      const piece = Buffer.alloc(CHECKPOINT_LIMITS.pieceBytes);
      // A first piece is sent even when empty: it begins the part on the host.
      let offset = 0;
      do {
        const want = Math.min(piece.length, end - offset);
        const { bytesRead } = await handle.read(piece, 0, want, offset);
        await this.#input.channel.request({
          op: "checkpoint.piece",
          part,
          offset,
          data: piece.subarray(0, bytesRead).toString("base64"),
        });
        if (bytesRead === 0) break;
        offset += bytesRead;
      } while (offset < end);
      return offset;
    } finally {
      await handle.close();
    }
  }
}

/** Where the file's last whole line ends (0 when it has none), reading back from `size`. */
async function lastLineEnd(handle: FileHandle, size: number): Promise<number> {
  const block = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0; end -= block.length) {
    const from = Math.max(0, end - block.length);
    const { bytesRead } = await handle.read(block, 0, end - from, from);
    const at = block.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (at >= 0) return from + at + 1;
  }
  return 0;
}
