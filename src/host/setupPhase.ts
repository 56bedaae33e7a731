// The host's account of a task's setup while its sandbox runs. The host alone decides when setup
// is over: at the runner's word that it ended, or at the host's own clock (the setup's time limit
// and a grace, from when the sandbox started), whichever is first, and never again after. Ending
// it narrows the proxy to the agent's list and cuts every tunnel opened while the setup's list
// held; from then on the setup's variables are never given out and no snapshot is taken. The
// runner's word can only end setup early, never widen anything.
import { constants, createReadStream } from "node:fs";
import { open, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import {
  BadSnapshotError,
  cleanLine,
  cutText,
  readSnapshot,
  SETUP_LIMITS,
  type ChannelResponse,
} from "../protocol/index.js";
import { errorMessage } from "../lang/index.js";
import type { SetupRequest } from "./channel/index.js";
import { HOST_LIMITS, SETUP_PHASE_LIMITS } from "./limits.js";
import { fileDigest, storeSnapshot } from "./setupCache/index.js";
import { SETUP_EVENTS } from "./setupEvents.js";

export { SETUP_EVENTS, SETUP_LOG } from "./setupEvents.js";

/** How a setup that did not succeed ended, as the terminal record tells it. */
export interface SetupFailure {
  readonly code: "SETUP_FAILED" | "SETUP_TIMEOUT";
  readonly error: string;
}

export interface SetupPhaseOptions {
  readonly dataDir: string;
  /** The task's directory: the snapshot is received there, on the data directory's filesystem. */
  readonly taskDir: string;
  /** results/setup.log. */
  readonly log: string;
  /** The cache key, when the snapshot is to be kept; undefined: none is taken. */
  readonly key: string | undefined;
  readonly commands: number;
  readonly goal: boolean;
  readonly timeoutSeconds: number;
  /** The values of the setup's variables: given out once, while setup runs. */
  readonly env: Readonly<Record<string, string>>;
  /** Narrows the network to the agent's list. */
  readonly narrow: () => void;
  readonly event: (type: string, data: Record<string, unknown>) => void;
  readonly progress: (text: string) => void;
  readonly warn: (text: string) => void;
  /** A tighter bound on the snapshot than SETUP_LIMITS.snapshotBytes, for tests. */
  readonly maxSnapshotBytes?: number;
}

const ENDED_MESSAGE = "setup is over: the host takes no more of it";

export class SetupPhase {
  #open = true;
  #started = false;
  #failure: SetupFailure | undefined;
  #timer: NodeJS.Timeout | undefined;
  #logBytes = 0;
  #logCut = false;
  #outputEvents = 0;
  #snapshot: FileHandle | undefined;
  #snapshotBytes = 0;
  #snapshotRefused = false;
  #storing: Promise<void> = Promise.resolve();
  readonly #snapshotPath: string;

  constructor(private readonly options: SetupPhaseOptions) {
    this.#snapshotPath = join(options.taskDir, "setup-snapshot.part");
    // From before the sandbox starts: its workspace's preparation, the setup, and a grace.
    this.#arm(HOST_LIMITS.gitStepMs + this.#setupMs());
  }

  /** The setup's own time limit and the grace beyond it. */
  #setupMs(): number {
    return this.options.timeoutSeconds * 1000 + SETUP_PHASE_LIMITS.graceMs;
  }

  #arm(ms: number): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      if (!this.#open) return;
      this.#failure ??= {
        code: "SETUP_TIMEOUT",
        error: `setup did not end within its time limit of ${this.options.timeoutSeconds} s; the host ended it`,
      };
      this.options.event(SETUP_EVENTS.ended, { ok: false, timedOut: true, by: "host" });
      this.end();
    }, ms);
    this.#timer.unref();
  }

  /** How setup failed, when it did. */
  get failure(): SetupFailure | undefined {
    return this.#failure;
  }

  /** Whether the host still counts the sandbox as in setup. */
  get open(): boolean {
    return this.#open;
  }

  /** Ends setup for good: the network narrows, and nothing more of setup is taken. */
  end(): void {
    if (!this.#open) return;
    this.#open = false;
    clearTimeout(this.#timer);
    this.options.narrow();
  }

  /** Ends setup if it is still open, and waits for a snapshot being stored. */
  async close(): Promise<void> {
    this.end();
    await this.#storing;
    await this.#snapshot?.close().catch(() => undefined);
    this.#snapshot = undefined;
    await rm(this.#snapshotPath, { force: true });
  }

  /** Answers one of the setup's channel requests. */
  async answer(request: SetupRequest): Promise<ChannelResponse> {
    const refuse = (message: string, code: "bad_request" | "too_big" = "bad_request") =>
      ({ v: 1, id: request.id, ok: false, error: { code, message } }) as const;
    if (!this.#open) return refuse(ENDED_MESSAGE);
    const base = { v: 1, id: request.id, ok: true } as const;
    switch (request.op) {
      case "setup.start":
        if (this.#started) return refuse("setup has started already");
        this.#started = true;
        // From now on setup has its own time limit and the grace, if that ends it sooner.
        this.#arm(this.#setupMs());
        this.options.event(SETUP_EVENTS.started, {
          commands: this.options.commands,
          goal: this.options.goal,
          cached: false,
        });
        this.options.progress("setup started");
        return { ...base, op: "setup.start", env: { ...this.options.env } };
      case "setup.output":
        return { ...base, op: "setup.output", recorded: await this.#output(request.lines) };
      case "setup.snapshot": {
        const kept = await this.#piece(request.data);
        return kept
          ? { ...base, op: "setup.snapshot", bytes: this.#snapshotBytes }
          : refuse(
              `the snapshot is over ${SETUP_LIMITS.snapshotBytes} bytes, or no snapshot is taken`,
              "too_big",
            );
      }
      case "setup.end":
        return { ...base, op: "setup.end", kept: this.#ended(request) };
    }
  }

  async #output(lines: readonly { stream: string; text: string }[]): Promise<number> {
    let text = "";
    let recorded = 0;
    for (const line of lines) {
      const clean = cleanLine(line.text);
      text += `${line.stream === "stderr" ? "! " : ""}${clean}\n`;
      if (this.#outputEvents < SETUP_PHASE_LIMITS.outputEvents) {
        this.#outputEvents++;
        recorded++;
        this.options.event(SETUP_EVENTS.output, { stream: line.stream, text: clean });
        this.options.progress(`setup: ${clean}`);
      }
    }
    await this.#writeLog(text);
    return recorded;
  }

  async #writeLog(text: string): Promise<void> {
    if (this.#logCut || text === "") return;
    const room = SETUP_PHASE_LIMITS.logBytes - this.#logBytes;
    let bytes = Buffer.from(text);
    if (bytes.length > room) {
      this.#logCut = true;
      bytes = Buffer.concat([
        Buffer.from(cutText(text, Math.max(0, room - 64)).text),
        Buffer.from(`\n[setup.log cut at ${SETUP_PHASE_LIMITS.logBytes} bytes]\n`),
      ]);
    }
    this.#logBytes += bytes.length;
    // Never through a link: results/ is the host's, and so is what it writes there.
    const handle = await open(
      this.options.log,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
    try {
      await handle.write(bytes);
    } finally {
      await handle.close();
    }
  }

  /** Appends one piece of the snapshot; false when no snapshot is taken or it is over its bound. */
  async #piece(data: string): Promise<boolean> {
    if (this.options.key === undefined || this.#snapshotRefused) return false;
    const bytes = Buffer.from(data, "base64");
    const max = Math.min(this.options.maxSnapshotBytes ?? Infinity, SETUP_LIMITS.snapshotBytes);
    if (this.#snapshotBytes + bytes.length > max) {
      this.#snapshotRefused = true;
      this.options.warn(`the setup's snapshot is over ${max} bytes; it is not kept`);
      return false;
    }
    this.#snapshot ??= await open(this.#snapshotPath, "wx", 0o600);
    await this.#snapshot.write(bytes);
    this.#snapshotBytes += bytes.length;
    return true;
  }

  #ended(request: Extract<SetupRequest, { op: "setup.end" }>): boolean {
    const said =
      request.error === undefined ? undefined : cutText(cleanLine(request.error), 2048).text;
    if (!request.ok) {
      this.#failure = {
        code: request.timedOut ? "SETUP_TIMEOUT" : "SETUP_FAILED",
        error: said ?? (request.timedOut ? "setup ran past its time limit" : "setup failed"),
      };
    }
    this.options.event(SETUP_EVENTS.ended, {
      ok: request.ok,
      timedOut: request.timedOut,
      durationMs: request.durationMs,
      ...(request.exitCode === undefined ? {} : { exitCode: request.exitCode }),
      ...(said === undefined ? {} : { error: said }),
    });
    this.end();
    const key = this.options.key;
    const take =
      request.ok &&
      request.snapshot &&
      key !== undefined &&
      !this.#snapshotRefused &&
      this.#snapshot !== undefined;
    if (take) this.#storing = this.#store(key);
    return take;
  }

  /** Checks the snapshot received as hostile input, then keeps it in the cache. */
  async #store(key: string): Promise<void> {
    try {
      await this.#snapshot?.close();
      this.#snapshot = undefined;
      const summary = await readSnapshot(createReadStream(this.#snapshotPath));
      const digest = await fileDigest(this.#snapshotPath);
      const kept = await storeSnapshot(this.options.dataDir, key, this.#snapshotPath, digest);
      if (kept) {
        this.options.event(SETUP_EVENTS.stored, {
          files: summary.files,
          deletions: summary.deletions.length,
          bytes: digest.bytes,
        });
      }
    } catch (error) {
      const why = error instanceof BadSnapshotError ? error.message : errorMessage(error);
      this.options.warn(`the setup's snapshot was refused and is not kept: ${cleanLine(why)}`);
    }
  }
}
