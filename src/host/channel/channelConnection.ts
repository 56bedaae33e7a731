// One connection of the guest-to-host channel, as the host reads it: newline-delimited requests
// taken one at a time and answered in order. The peer is hostile, so every resource it can make
// the host spend is bounded: a line (longer closes the connection), the lines read ahead (the
// socket pauses), the requests a second (a token bucket; a peer that keeps going past it is cut
// off), and the answers it does not read (the host stops reading until it does).
import { once } from "node:events";
import type { Socket } from "node:net";
import {
  CHANNEL_LIMITS,
  channelLine,
  parseChannelRequest,
  type ChannelErrorCode,
  type ChannelRequest,
  type ChannelResponse,
} from "../../protocol/index.js";
import { TokenBucket } from "./tokenBucket.js";

export const CONNECTION_LIMITS = {
  /** One request line, its newline excluded. */
  requestBytes: CHANNEL_LIMITS.requestBytes,
  requestsPerSecond: CHANNEL_LIMITS.requestsPerSecond,
  /** A second's worth of requests may come at once: the runner sends in bursts at turn ends. */
  burst: CHANNEL_LIMITS.requestsPerSecond,
  /**
   * Requests refused in a row for the rate before the connection is closed: a peer that
   * ignores `rate_limited` this long is flooding, and answering it is work too.
   */
  limitedBeforeClose: 2 * CHANNEL_LIMITS.requestsPerSecond,
  /**
   * Whole lines read ahead of the one being answered. Past it the socket is paused and the
   * rest of the chunk in hand is held unsplit, so a chunk of bare newlines costs no more.
   */
  queuedLines: 16,
  /** Answer bytes the peer has not read; past it nothing more is read until it does. */
  unreadAnswerBytes: 4 * CHANNEL_LIMITS.responseBytes,
} as const;

/** What a channel's connections did, for the task's events and for tests. */
export interface ChannelStats {
  connections: number;
  refusedConnections: number;
  requests: number;
  /** Answers with ok: false, by code. */
  errors: Partial<Record<ChannelErrorCode, number>>;
  /** Connections closed for a line over the limit, or for flooding past the rate. */
  closedForSize: number;
  closedForRate: number;
}

export function emptyStats(): ChannelStats {
  return {
    connections: 0,
    refusedConnections: 0,
    requests: 0,
    errors: {},
    closedForSize: 0,
    closedForRate: 0,
  };
}

export type Answerer = (request: ChannelRequest) => Promise<ChannelResponse>;

export function errorResponse(
  id: number,
  code: ChannelErrorCode,
  message: string,
): ChannelResponse {
  return { v: 1, id, ok: false, error: { code, message } };
}

export class ChannelConnection {
  readonly #socket: Socket;
  readonly #answer: Answerer;
  readonly #stats: ChannelStats;
  readonly #bucket: TokenBucket;
  #partial: Buffer[] = [];
  #partialBytes = 0;
  readonly #queue: Buffer[] = [];
  /** Bytes read but not yet split into lines, while the queue is full. */
  #held: Buffer | undefined;
  #running = false;
  /** Set once the connection is being closed: nothing more is read or answered. */
  #dead = false;
  #limitedInARow = 0;
  /** Settles when the socket has closed. */
  readonly closed: Promise<void>;

  constructor(socket: Socket, answer: Answerer, stats: ChannelStats, now: () => number) {
    this.#socket = socket;
    this.#answer = answer;
    this.#stats = stats;
    this.#bucket = new TokenBucket(
      CONNECTION_LIMITS.requestsPerSecond,
      CONNECTION_LIMITS.burst,
      now,
    );
    this.closed = new Promise((resolve) => {
      socket.once("close", () => {
        resolve();
      });
    });
    socket.on("data", (chunk: Buffer) => {
      this.#read(chunk);
    });
    socket.on("error", () => {
      // A peer that went away mid-answer: the close that follows ends the connection.
    });
    socket.once("close", () => {
      this.#dead = true;
      this.#queue.length = 0;
    });
  }

  /** Read through a method: the socket may close while an answer is awaited. */
  #isDead(): boolean {
    return this.#dead;
  }

  /** Ends the connection now. */
  destroy(): void {
    this.#dead = true;
    this.#socket.destroy();
  }

  #read(chunk: Buffer): void {
    if (this.#held !== undefined) {
      // Data that was already on its way when the socket paused.
      this.#held = Buffer.concat([this.#held, chunk]);
      return;
    }
    let start = 0;
    while (!this.#dead) {
      if (this.#queue.length >= CONNECTION_LIMITS.queuedLines) {
        this.#held = chunk.subarray(start);
        this.#socket.pause();
        return;
      }
      const end = chunk.indexOf(10, start);
      const piece = chunk.subarray(start, end === -1 ? chunk.length : end);
      if (this.#partialBytes + piece.length > CONNECTION_LIMITS.requestBytes) {
        this.#refuseLine();
        return;
      }
      if (end === -1) {
        if (piece.length > 0) {
          this.#partial.push(piece);
          this.#partialBytes += piece.length;
        }
        return;
      }
      const line = this.#partial.length === 0 ? piece : Buffer.concat([...this.#partial, piece]);
      this.#partial = [];
      this.#partialBytes = 0;
      this.#push(line);
      start = end + 1;
    }
  }

  /** A line over the limit: one answer that says so, then the connection is closed. */
  #refuseLine(): void {
    this.#stats.closedForSize++;
    this.#count("too_big");
    this.#close(
      errorResponse(0, "too_big", `a request over ${CONNECTION_LIMITS.requestBytes} bytes`),
    );
  }

  #close(last: ChannelResponse): void {
    if (this.#dead) return;
    this.#dead = true;
    this.#queue.length = 0;
    this.#partial = [];
    this.#held = undefined;
    this.#socket.end(channelLine(last), () => this.#socket.destroy());
    // A peer that never reads would keep end() from finishing.
    setTimeout(() => this.#socket.destroy(), 1000).unref();
  }

  #push(line: Buffer): void {
    this.#queue.push(line);
    if (!this.#running) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#running = true;
    try {
      for (;;) {
        const line = this.#queue.shift();
        if (line === undefined || this.#dead) break;
        const held = this.#held;
        if (held !== undefined) {
          this.#held = undefined;
          this.#read(held);
        }
        const response = await this.#respond(line);
        if (this.#isDead()) break;
        if (!response.ok) this.#count(response.error.code);
        const written = this.#socket.write(channelLine(response));
        if (!written && this.#socket.writableLength > CONNECTION_LIMITS.unreadAnswerBytes) {
          this.#socket.pause();
          await Promise.race([once(this.#socket, "drain"), this.closed]);
        }
        if (this.#held === undefined && !this.#isDead()) this.#socket.resume();
      }
    } catch {
      this.destroy();
    } finally {
      this.#running = false;
    }
  }

  async #respond(line: Buffer): Promise<ChannelResponse> {
    this.#stats.requests++;
    const parsed = parseChannelRequest(line);
    const id = parsed.ok ? parsed.request.id : parsed.id;
    if (!this.#bucket.take()) {
      this.#limitedInARow++;
      if (this.#limitedInARow > CONNECTION_LIMITS.limitedBeforeClose) {
        this.#stats.closedForRate++;
        this.#count("rate_limited");
        this.#close(errorResponse(id, "rate_limited", "too many requests: closing"));
      }
      return errorResponse(
        id,
        "rate_limited",
        `more than ${CONNECTION_LIMITS.requestsPerSecond} requests a second`,
      );
    }
    this.#limitedInARow = 0;
    if (!parsed.ok) return errorResponse(parsed.id, parsed.code, parsed.message);
    try {
      return await this.#answer(parsed.request);
    } catch {
      return errorResponse(id, "internal", "the host could not answer this request");
    }
  }

  #count(code: ChannelErrorCode): void {
    this.#stats.errors[code] = (this.#stats.errors[code] ?? 0) + 1;
  }
}
