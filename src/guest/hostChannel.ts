// The guest's end of the channel to the host (src/protocol/channel.ts): one connection to
// control.sock, one request at a time in the order they were asked, each answer bounded and
// checked. The host may be slow, gone or hostile; none of that may stop the agent, so every
// failure is an error the caller turns into a warning, and a broken channel stays broken.
import { createConnection, type Socket } from "node:net";
import { within } from "../lang/index.js";
import {
  CHANNEL_LIMITS,
  CHANNEL_VERSION,
  channelLine,
  cleanLine,
  parseChannelResponse,
  type ChannelRequest,
  type ChannelResponse,
} from "../protocol/index.js";
import { GUEST_CHANNEL_LIMITS } from "./limits.js";
import { ChannelRefusedError, HostChannelError } from "./errors.js";
import { LineSplitter } from "./lineSplitter.js";

/** A request as a caller asks it; the channel adds the version and the id. */
export type ChannelAsk = ChannelRequest extends infer R
  ? R extends ChannelRequest
    ? Omit<R, "v" | "id">
    : never
  : never;

/** The answer to a request of operation `Op`. */
export type ChannelAnswer<Op extends ChannelAsk["op"]> = Extract<
  ChannelResponse,
  { ok: true; op: Op }
>;

export interface HostChannelOptions {
  /** Each request's timeout but approval.ask's (which has none). */
  readonly requestMs?: number;
  readonly connectMs?: number;
}

interface Waiting {
  readonly ask: ChannelAsk;
  readonly resolve: (answer: ChannelResponse) => void;
  readonly reject: (error: Error) => void;
}

function seconds(ms: number): string {
  return `${ms / 1000} s`;
}

export class HostChannel {
  private readonly queue: Waiting[] = [];
  private inFlight:
    (Waiting & { readonly id: number; readonly timer?: NodeJS.Timeout }) | undefined;
  private nextId = 1;
  private brokenBy: HostChannelError | undefined;
  private readonly lines: LineSplitter;
  private readonly requestMs: number;
  private idleWaiters: (() => void)[] = [];

  private constructor(
    private readonly socket: Socket,
    options: HostChannelOptions,
  ) {
    this.requestMs = options.requestMs ?? GUEST_CHANNEL_LIMITS.requestMs;
    this.lines = new LineSplitter(
      CHANNEL_LIMITS.responseBytes,
      (line) => {
        this.answer(line);
      },
      () => {
        this.break(`the host answered with a line over ${CHANNEL_LIMITS.responseBytes} bytes`);
      },
    );
    socket.on("data", (chunk: Buffer) => {
      this.lines.push(chunk);
    });
    socket.on("error", (error) => {
      this.break(`the channel to the host failed: ${cleanLine(error.message)}`);
    });
    socket.on("close", () => {
      this.break("the host closed the channel");
    });
  }

  /** Connects to the host's socket at `path`; rejects with HostChannelError when it cannot. */
  static open(path: string, options: HostChannelOptions = {}): Promise<HostChannel> {
    const connectMs = options.connectMs ?? GUEST_CHANNEL_LIMITS.connectMs;
    return new Promise((resolve, reject) => {
      const socket = createConnection({ path });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(
          new HostChannelError(`the host did not accept the channel within ${seconds(connectMs)}`),
        );
      }, connectMs);
      const failed = (error: Error): void => {
        clearTimeout(timer);
        reject(
          new HostChannelError(
            `could not connect to the host's channel: ${cleanLine(error.message)}`,
          ),
        );
      };
      socket.once("error", failed);
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.off("error", failed);
        resolve(new HostChannel(socket, options));
      });
    });
  }

  /** Why the channel stopped working, once it has; every request after that fails at once. */
  get broken(): HostChannelError | undefined {
    return this.brokenBy;
  }

  /**
   * Asks the host, after every request asked before. Rejects with HostChannelError when the
   * channel is or becomes broken, ChannelRefusedError when the host refused this one request.
   */
  request<Op extends ChannelAsk["op"]>(
    ask: Extract<ChannelAsk, { op: Op }>,
  ): Promise<ChannelAnswer<Op>> {
    return new Promise<ChannelResponse>((resolve, reject) => {
      if (this.brokenBy !== undefined) {
        reject(this.brokenBy);
        return;
      }
      this.queue.push({ ask, resolve, reject });
      this.pump();
    }) as Promise<ChannelAnswer<Op>>;
  }

  /**
   * Resolves once every request asked so far is answered (or the channel broke), or after `ms`,
   * whichever is first: what the runner waits for before it closes the channel.
   */
  async settle(ms: number): Promise<void> {
    if (this.isIdle()) return;
    const idle = new Promise<void>((resolve) => {
      this.idleWaiters.push(resolve);
    });
    await within(idle, ms);
  }

  /** Ends the connection; what is still waiting fails. */
  close(): void {
    this.break("the channel was closed");
  }

  private isIdle(): boolean {
    return this.brokenBy !== undefined || (this.inFlight === undefined && this.queue.length === 0);
  }

  private wakeIdle(): void {
    if (!this.isIdle()) return;
    for (const wake of this.idleWaiters.splice(0)) wake();
  }

  private pump(): void {
    if (this.inFlight !== undefined || this.brokenBy !== undefined) return;
    const next = this.queue.shift();
    if (next === undefined) {
      this.wakeIdle();
      return;
    }
    const id = this.nextId++;
    const line = channelLine({ v: CHANNEL_VERSION, id, ...next.ask });
    if (Buffer.byteLength(line) > CHANNEL_LIMITS.requestBytes + 1) {
      // The caller's mistake, not the host's: this request fails and the channel goes on.
      next.reject(
        new HostChannelError(
          `a ${next.ask.op} request over ${CHANNEL_LIMITS.requestBytes} bytes was not sent`,
        ),
      );
      this.pump();
      return;
    }
    const timer =
      next.ask.op === "approval.ask"
        ? undefined
        : setTimeout(() => {
            this.break(
              `the host did not answer a ${next.ask.op} request within ${seconds(this.requestMs)}`,
            );
          }, this.requestMs);
    this.inFlight = timer === undefined ? { ...next, id } : { ...next, id, timer };
    this.socket.write(line);
  }

  private answer(line: Buffer): void {
    const waiting = this.inFlight;
    if (waiting === undefined) {
      this.break("the host sent an answer nobody asked for");
      return;
    }
    let response: ChannelResponse;
    try {
      response = parseChannelResponse(line);
    } catch {
      this.break("the host answered with something that is not a channel response");
      return;
    }
    if (response.id !== waiting.id) {
      this.break(`the host answered request ${response.id} where ${waiting.id} was asked`);
      return;
    }
    if (response.ok && response.op !== waiting.ask.op) {
      this.break(`the host answered a ${waiting.ask.op} request as ${response.op}`);
      return;
    }
    clearTimeout(waiting.timer);
    this.inFlight = undefined;
    if (response.ok) {
      waiting.resolve(response);
    } else {
      waiting.reject(
        new ChannelRefusedError(
          `the host refused a ${waiting.ask.op} request (${response.error.code}): ${cleanLine(response.error.message)}`,
          { refusal: response.error.code },
        ),
      );
    }
    this.pump();
  }

  private break(why: string): void {
    if (this.brokenBy !== undefined) return;
    const error = new HostChannelError(why);
    this.brokenBy = error;
    const waiting = this.inFlight;
    this.inFlight = undefined;
    if (waiting !== undefined) {
      clearTimeout(waiting.timer);
      waiting.reject(error);
    }
    for (const queued of this.queue.splice(0)) queued.reject(error);
    this.socket.destroy();
    this.wakeIdle();
  }
}
