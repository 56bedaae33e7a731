// A command's stdout and stderr as `output` events while it runs, so that `watch` and `logs
// --follow` show its lines as they are written. Each line is cut to a bound, the lines of both
// streams share one rate, and what goes past the rate is counted, never held: memory stays at
// about one line per stream, whatever the agent writes. The host cleans every text it shows.
import { AGENT_EVENT_LIMITS, type AgentEvent } from "../agents/index.js";
import { cutText } from "../protocol/index.js";
import { GUEST_CHANNEL_LIMITS } from "./limits.js";

export type OutputStream = "stdout" | "stderr";

export interface LiveOutputLimits {
  readonly lineBytes: number;
  readonly linesPerSecond: number;
  readonly burst: number;
  readonly partialLineMs: number;
}

const DEFAULT_LIMITS: LiveOutputLimits = {
  lineBytes: AGENT_EVENT_LIMITS.outputLineBytes,
  linesPerSecond: GUEST_CHANNEL_LIMITS.outputLinesPerSecond,
  burst: GUEST_CHANNEL_LIMITS.outputLineBurst,
  partialLineMs: GUEST_CHANNEL_LIMITS.partialLineMs,
};

const NEWLINE = 0x0a;
const utf8 = new TextDecoder("utf-8");

/** What a terminal would show of a line a carriage return rewrote: its last non-empty part. */
function shownPart(text: string): string {
  if (!text.includes("\r")) return text;
  const parts = text.split("\r").filter((part) => part !== "");
  return parts[parts.length - 1] ?? "";
}

/** One stream's line so far: at most `lineBytes` bytes, the rest of an overlong line dropped. */
class PendingLine {
  parts: Buffer[] = [];
  bytes = 0;
  /** The line went over the bound: its start was sent, the rest is dropped up to its newline. */
  skippingRest = false;
  /** Lines left out for the rate since the last one sent. */
  skipped = 0;
  timer: NodeJS.Timeout | undefined;
}

/** One run's output as lines for a watcher; `end()` once the run's output has ended. */
export class LiveOutput {
  readonly #emit: (event: AgentEvent) => void;
  readonly #limits: LiveOutputLimits;
  readonly #now: () => number;
  readonly #streams: Record<OutputStream, PendingLine> = {
    stdout: new PendingLine(),
    stderr: new PendingLine(),
  };
  #tokens: number;
  #refilled: number;

  constructor(
    emit: (event: AgentEvent) => void,
    limits: LiveOutputLimits = DEFAULT_LIMITS,
    now: () => number = Date.now,
  ) {
    this.#emit = emit;
    this.#limits = limits;
    this.#now = now;
    this.#tokens = limits.burst;
    this.#refilled = now();
  }

  /** A chunk of one stream, as it arrives. Never throws. */
  push(stream: OutputStream, chunk: Buffer): void {
    const line = this.#streams[stream];
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      this.#append(stream, line, chunk.subarray(start, end === -1 ? chunk.length : end));
      if (end === -1) break;
      if (line.skippingRest) line.skippingRest = false;
      else this.#finish(stream, line, false);
      start = end + 1;
    }
    this.#armPartial(stream, line);
  }

  /** The run's output ended: sends the lines begun and says how many were left out. */
  end(): void {
    for (const stream of ["stdout", "stderr"] as const) {
      const line = this.#streams[stream];
      clearTimeout(line.timer);
      line.timer = undefined;
      if (line.bytes > 0) this.#finish(stream, line, false);
      line.skippingRest = false;
      if (line.skipped > 0) {
        // Past the rate on purpose: one count per stream, so a watcher knows lines are missing.
        this.#emit({ type: "output", stream, text: "", cut: false, skipped: line.skipped });
        line.skipped = 0;
      }
    }
  }

  #append(stream: OutputStream, line: PendingLine, part: Buffer): void {
    if (part.length === 0 || line.skippingRest) return;
    const room = this.#limits.lineBytes - line.bytes;
    // A copy: the caller may reuse the chunk's memory once push returns.
    line.parts.push(Buffer.from(part.subarray(0, Math.max(0, room))));
    line.bytes += Math.min(part.length, room);
    if (part.length > room) {
      this.#finish(stream, line, true);
      line.skippingRest = true;
    }
  }

  /** A line begun and left without its newline is sent after a pause, as it is. */
  #armPartial(stream: OutputStream, line: PendingLine): void {
    if (line.bytes === 0 || line.timer !== undefined) return;
    line.timer = setTimeout(() => {
      line.timer = undefined;
      if (line.bytes > 0) this.#finish(stream, line, false);
    }, this.#limits.partialLineMs);
    // A line still waiting must not keep the runner alive; end() sends it.
    line.timer.unref();
  }

  #finish(stream: OutputStream, line: PendingLine, cut: boolean): void {
    const bytes = Buffer.concat(line.parts, line.bytes);
    line.parts = [];
    line.bytes = 0;
    clearTimeout(line.timer);
    line.timer = undefined;
    if (!this.#take()) {
      line.skipped += 1;
      return;
    }
    // A byte the decoder replaces grows to three, so the text is cut again after decoding.
    const text = cutText(shownPart(utf8.decode(bytes)), this.#limits.lineBytes);
    const skipped = line.skipped;
    line.skipped = 0;
    this.#emit({
      type: "output",
      stream,
      text: text.text,
      cut: cut || text.cut,
      ...(skipped > 0 ? { skipped } : {}),
    });
  }

  /** Takes one line's share of the rate, if there is one. */
  #take(): boolean {
    const now = this.#now();
    const elapsed = Math.max(0, now - this.#refilled) / 1000;
    this.#refilled = now;
    this.#tokens = Math.min(
      this.#limits.burst,
      this.#tokens + elapsed * this.#limits.linesPerSecond,
    );
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }
}
