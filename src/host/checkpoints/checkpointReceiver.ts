// The host's end of the checkpoints while a sandbox runs: the runner's pieces are written into
// `checkpoint.next/` in order and within their bounds; at `checkpoint.end` the bundle's header is
// checked against the base (as changes.bundle's is), the session file is read line by line and
// each line held to the shape the task's agent writes, and
// only a checkpoint that passes takes the kept one's place. Everything here is the guest's claim:
// a refusal drops the checkpoint being made and leaves the kept one as it was.
import { constants } from "node:fs";
import { mkdir, open, rm, type FileHandle } from "node:fs/promises";
import { join } from "node:path";
import type { AgentSessions } from "../../agents/index.js";
import { errorMessage } from "../../lang/index.js";
import {
  CHECKPOINT_LIMITS,
  checkBundle,
  checkSessionFile,
  cleanLine,
  readBundleHeaderFile,
  type ChannelRequest,
  type ChannelResponse,
  type CheckpointPart,
} from "../../protocol/index.js";
import {
  CHECKPOINT_DIRS,
  CHECKPOINT_FILES,
  keepNext,
  readCheckpoint,
  writeManifest,
  type CheckpointManifest,
} from "./checkpointFiles.js";
import { HOST_CHECKPOINT_LIMITS } from "./limits.js";

export type CheckpointRequest = Extract<ChannelRequest, { op: `checkpoint.${string}` }>;

export interface CheckpointReceiverOptions {
  readonly taskDir: string;
  /** The commit the task started from, which the host computed itself. */
  readonly base: string;
  readonly attempt: number;
  /**
   * The agent's sessions, whose check a session file must pass; absent for an agent whose
   * sessions are not kept, when a checkpoint that carries one is refused.
   */
  readonly sessions: AgentSessions | undefined;
  /** Records a kept checkpoint, or the first refusal, as the task's event. */
  readonly event: (type: string, data: Record<string, unknown>) => void;
  readonly now?: () => number;
}

/** A part being received: its file and the bytes so far. */
interface OpenPart {
  readonly handle: FileHandle;
  bytes: number;
}

/** Why a checkpoint is refused; answered to the runner as bad_request. */
class RefusedCheckpoint extends Error {}

export class CheckpointReceiver {
  readonly #options: CheckpointReceiverOptions;
  /** The seq of the last checkpoint kept; read from the kept one at this attach's first. */
  #seq: number | undefined;
  #parts: Partial<Record<CheckpointPart, OpenPart>> | undefined;
  /** Requests are taken one at a time, whichever connection they come on. */
  #queue: Promise<unknown> = Promise.resolve();
  #refusalNoted = false;
  #closed = false;

  constructor(options: CheckpointReceiverOptions) {
    this.#options = options;
    this.#seq = undefined;
  }

  answer(request: CheckpointRequest): Promise<ChannelResponse> {
    const next = this.#queue.then(() => this.#answer(request));
    this.#queue = next.catch(() => undefined);
    return next;
  }

  /** Drops a checkpoint being made; the kept one stays. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#queue;
    await this.#drop();
  }

  async #answer(request: CheckpointRequest): Promise<ChannelResponse> {
    const base = { v: 1, id: request.id, ok: true } as const;
    try {
      if (this.#closed) throw new RefusedCheckpoint("the attach is over");
      if (request.op === "checkpoint.piece") {
        await this.#piece(request.part, request.offset, Buffer.from(request.data, "base64"));
        return { ...base, op: "checkpoint.piece" };
      }
      return { ...base, op: "checkpoint.end", seq: await this.#end(request) };
    } catch (error) {
      await this.#drop();
      const why = cleanLine(errorMessage(error));
      if (!this.#refusalNoted) {
        this.#refusalNoted = true;
        this.#options.event("checkpoint_refused", { why });
      }
      if (!(error instanceof RefusedCheckpoint)) throw error;
      return { v: 1, id: request.id, ok: false, error: { code: "bad_request", message: why } };
    }
  }

  #next(): string {
    return join(this.#options.taskDir, CHECKPOINT_DIRS.next);
  }

  async #piece(part: CheckpointPart, offset: number, data: Buffer): Promise<void> {
    if (data.byteLength > CHECKPOINT_LIMITS.pieceBytes) {
      throw new RefusedCheckpoint("a checkpoint piece over its bound");
    }
    if (this.#parts === undefined) {
      if (offset !== 0) throw new RefusedCheckpoint("a checkpoint that does not begin at 0");
      await rm(this.#next(), { recursive: true, force: true });
      await mkdir(this.#next(), { mode: 0o700 });
      this.#parts = {};
    }
    const parts = this.#parts;
    let open_ = parts[part];
    if (open_ === undefined) {
      if (offset !== 0) throw new RefusedCheckpoint(`the ${part} does not begin at 0`);
      const name = part === "bundle" ? CHECKPOINT_FILES.bundle : CHECKPOINT_FILES.session;
      const handle = await open(
        join(this.#next(), name),
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW,
        0o600,
      );
      open_ = { handle, bytes: 0 };
      parts[part] = open_;
    }
    if (offset !== open_.bytes)
      throw new RefusedCheckpoint(`the ${part}'s pieces are out of order`);
    const max = part === "bundle" ? CHECKPOINT_LIMITS.bundleBytes : CHECKPOINT_LIMITS.sessionBytes;
    const total = (parts.bundle?.bytes ?? 0) + (parts.session?.bytes ?? 0) + data.byteLength;
    if (open_.bytes + data.byteLength > max || total > HOST_CHECKPOINT_LIMITS.keptBytes) {
      throw new RefusedCheckpoint(`the checkpoint's ${part} is over its bound of ${max} bytes`);
    }
    await open_.handle.write(data);
    open_.bytes += data.byteLength;
  }

  async #end(request: Extract<CheckpointRequest, { op: "checkpoint.end" }>): Promise<number> {
    const began = this.#parts !== undefined;
    const parts = this.#parts ?? {};
    const bundleBytes = parts.bundle?.bytes ?? 0;
    const sessionBytes = parts.session?.bytes ?? 0;
    if (bundleBytes !== request.bundleBytes || sessionBytes !== request.sessionBytes) {
      throw new RefusedCheckpoint("the checkpoint's sizes are not what was sent");
    }
    if ((request.sessionId === undefined) !== (sessionBytes === 0)) {
      throw new RefusedCheckpoint("a session file without a session, or a session without one");
    }
    for (const part of Object.values(parts)) {
      await part.handle.sync();
      await part.handle.close();
    }
    this.#parts = undefined;
    if (!began) {
      // A checkpoint of nothing but a head: no piece made its directory.
      await rm(this.#next(), { recursive: true, force: true });
      await mkdir(this.#next(), { mode: 0o700 });
    }
    const tip = request.tip ?? request.head;
    const dir = this.#next();
    if (bundleBytes > 0) {
      const header = await readBundleHeaderFile(join(dir, CHECKPOINT_FILES.bundle)).catch(
        (error: unknown) => {
          throw new RefusedCheckpoint(`its bundle: ${errorMessage(error)}`);
        },
      );
      let claimed: string;
      try {
        claimed = checkBundle(header, this.#options.base);
      } catch (error) {
        throw new RefusedCheckpoint(`its bundle: ${errorMessage(error)}`);
      }
      if (claimed !== tip) throw new RefusedCheckpoint("its bundle's tip is not the one it names");
    } else if (tip !== this.#options.base) {
      throw new RefusedCheckpoint("a checkpoint with changes and no bundle");
    }
    if (request.tip !== undefined && request.tip === request.head) {
      throw new RefusedCheckpoint("a tip of uncommitted work that is the head itself");
    }
    if (sessionBytes > 0) {
      const { sessions } = this.#options;
      const sessionId = request.sessionId ?? "";
      if (sessions === undefined) {
        throw new RefusedCheckpoint("a session file of an agent whose sessions are not kept");
      }
      const handle = await open(join(dir, CHECKPOINT_FILES.session), "r");
      try {
        checkSessionFile(await handle.readFile(), (line, index) => {
          sessions.checkLine(line, index, sessionId);
        });
      } catch (error) {
        throw new RefusedCheckpoint(`its session file: ${errorMessage(error)}`);
      } finally {
        await handle.close();
      }
    }
    this.#seq ??= (await readCheckpoint(this.#options.taskDir))?.manifest.seq ?? 0;
    const seq = this.#seq + 1;
    const manifest: CheckpointManifest = {
      version: 1,
      seq,
      at: (this.#options.now ?? Date.now)(),
      origin: "run",
      attempt: this.#options.attempt,
      turn: request.turn,
      base: this.#options.base,
      head: request.head,
      ...(request.tip === undefined ? {} : { tip: request.tip }),
      ...(request.sessionId === undefined ? {} : { sessionId: request.sessionId }),
      bundleBytes,
      sessionBytes,
    };
    await writeManifest(dir, manifest);
    await keepNext(this.#options.taskDir);
    this.#seq = seq;
    this.#options.event("checkpoint", {
      checkpoint: seq,
      turn: request.turn,
      head: request.head,
      ...(request.tip === undefined ? {} : { tip: request.tip }),
      bundleBytes,
      sessionBytes,
    });
    return seq;
  }

  async #drop(): Promise<void> {
    const parts = this.#parts;
    this.#parts = undefined;
    for (const part of Object.values(parts ?? {})) await part.handle.close().catch(() => undefined);
    await rm(this.#next(), { recursive: true, force: true });
  }
}
