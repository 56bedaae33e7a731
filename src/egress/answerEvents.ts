// The JSON values a model answer carries, found as its bytes pass: each `data:` event of a
// server-sent event stream as soon as its closing blank line arrives, or, for an answer that is
// one JSON document (a plain answer, Gemini's streamed JSON array), that document once the
// answer ends. The reader only reads the bytes, copying what it keeps past a chunk; it never
// holds back or changes what the agent gets, and nothing it is fed makes it throw.
import { EGRESS_LIMITS } from "./limits.js";

/** How an answer's body is framed, from its Content-Type. */
export type AnswerFraming = "events" | "json" | "unread";

export function framingOf(contentType: string | undefined): AnswerFraming {
  const type = (contentType ?? "").toLowerCase();
  if (type.includes("text/event-stream")) return "events";
  if (type.includes("json")) return "json";
  return "unread";
}

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

/**
 * The text a value must hold to be worth parsing: every usage the meter reads sits under a key
 * with "usage" in its name (`usage`, `usageMetadata`), so other events are not decoded at all.
 * A key never spans a line, so the mark is found in an event's raw bytes.
 */
const USAGE_MARK = Buffer.from("usage");

function parse(text: string, onValue: (value: unknown) => void): void {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return;
  }
  onValue(value);
}

/** The `data:` lines of one event's text, joined as the event stream format says. */
function eventData(text: string): string {
  const data: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith("data:")) continue;
    data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
  }
  return data.join("\n");
}

/**
 * Where the blank line that ends an event ends (just past it), looking from `from`: a line
 * end followed by `\n` or `\r\n`. -1 when there is none in `bytes`.
 */
function nextBoundary(bytes: Buffer, from: number): number {
  for (let at = bytes.indexOf(NEWLINE, from); at !== -1; at = bytes.indexOf(NEWLINE, at + 1)) {
    if (bytes[at + 1] === NEWLINE) return at + 2;
    if (bytes[at + 1] === CARRIAGE_RETURN && bytes[at + 2] === NEWLINE) return at + 3;
  }
  return -1;
}

/** Just past the last blank line in `bytes` at or after `from`, or -1. */
function lastBoundary(bytes: Buffer, from: number): number {
  const lf = bytes.lastIndexOf("\n\n");
  const crlf = bytes.lastIndexOf("\n\r\n");
  const end = Math.max(lf === -1 ? -1 : lf + 2, crlf === -1 ? -1 : crlf + 3);
  return end > from ? end : -1;
}

/**
 * Reads an event stream event by event; `onValue` gets the parsed data of each event that holds
 * the usage mark. Events without it are skipped a chunk at a time, by native searches, so a
 * long stream of text deltas costs a few searches per chunk, not work per event.
 */
class EventStreamReader {
  readonly #onValue: (value: unknown) => void;
  /** The bytes of the event whose end has not arrived yet. */
  #open: Buffer[] = [];
  #openBytes = 0;
  /** Whether the open event holds the mark. */
  #marked = false;
  /** Set while the rest of an over-long event is dropped. */
  #skipping = false;
  /** The last bytes of the previous chunk: a blank line or the mark may straddle two chunks. */
  #before: Buffer = Buffer.alloc(0);

  constructor(onValue: (value: unknown) => void) {
    this.#onValue = onValue;
  }

  write(chunk: Buffer): void {
    let start = this.#straddlingBoundary(chunk);
    if (start > 0) {
      this.#take(chunk.subarray(0, start));
      this.#close();
    } else if (
      Buffer.concat([this.#before, chunk.subarray(0, USAGE_MARK.length - 1)]).includes(USAGE_MARK)
    ) {
      this.#marked = true;
    }
    let mark = chunk.indexOf(USAGE_MARK, start);
    while (start < chunk.length) {
      if (mark === -1 && !this.#marked) {
        // No event that ends in this chunk holds the mark: all of them are passed over at once.
        const last = lastBoundary(chunk, start);
        if (last !== -1) {
          this.#reset();
          start = last;
        }
        break;
      }
      const end = nextBoundary(chunk, start);
      if (end === -1) break;
      this.#take(chunk.subarray(start, end));
      this.#close();
      start = end;
      if (mark !== -1 && mark < start) mark = chunk.indexOf(USAGE_MARK, start);
    }
    // A copy: the open event outlives this chunk, which belongs to the stream.
    if (start < chunk.length) this.#take(Buffer.from(chunk.subarray(start)));
    const seen = chunk.length >= USAGE_MARK.length ? chunk : Buffer.concat([this.#before, chunk]);
    this.#before = Buffer.from(seen.subarray(Math.max(0, seen.length - (USAGE_MARK.length - 1))));
  }

  /** An event not closed by a blank line before the answer ended is still read. */
  end(): void {
    this.#close();
  }

  /** Just past a blank line that began in the previous chunk and ends in this one, or 0. */
  #straddlingBoundary(chunk: Buffer): number {
    const last = this.#before.at(-1);
    const penultimate = this.#before.at(-2);
    if (last === NEWLINE && chunk[0] === NEWLINE) return 1;
    if (last === NEWLINE && chunk[0] === CARRIAGE_RETURN && chunk[1] === NEWLINE) return 2;
    if (penultimate === NEWLINE && last === CARRIAGE_RETURN && chunk[0] === NEWLINE) return 1;
    return 0;
  }

  #take(piece: Buffer): void {
    if (this.#skipping) return;
    if (this.#openBytes + piece.length > EGRESS_LIMITS.meterEventBytes) {
      this.#open = [];
      this.#openBytes = 0;
      this.#skipping = true;
      return;
    }
    this.#open.push(piece);
    this.#openBytes += piece.length;
    this.#marked ||= piece.includes(USAGE_MARK);
  }

  #close(): void {
    const read = this.#marked && !this.#skipping && this.#openBytes > 0;
    const text = read ? Buffer.concat(this.#open).toString("utf8") : "";
    this.#reset();
    if (read) parse(eventData(text), this.#onValue);
  }

  #reset(): void {
    this.#open = [];
    this.#openBytes = 0;
    this.#marked = false;
    this.#skipping = false;
  }
}

/** Copies a JSON answer aside and reads it once it ends; an array gives each of its items. */
class JsonReader {
  readonly #onValue: (value: unknown) => void;
  #chunks: Buffer[] = [];
  #bytes = 0;

  constructor(onValue: (value: unknown) => void) {
    this.#onValue = onValue;
  }

  write(chunk: Buffer): void {
    if (this.#bytes + chunk.length > EGRESS_LIMITS.meterJsonBytes) {
      this.#chunks = [];
      this.#bytes = Number.POSITIVE_INFINITY;
      return;
    }
    this.#chunks.push(Buffer.from(chunk));
    this.#bytes += chunk.length;
  }

  end(): void {
    const chunks = this.#chunks;
    this.#chunks = [];
    if (!Number.isFinite(this.#bytes)) return;
    const text = Buffer.concat(chunks).toString("utf8");
    if (!text.includes(USAGE_MARK.toString())) return;
    parse(text, (value) => {
      if (Array.isArray(value)) for (const item of value as unknown[]) this.#onValue(item);
      else this.#onValue(value);
    });
  }
}

export interface AnswerReader {
  write(chunk: Buffer): void;
  end(): void;
}

/** A reader of one answer's values; undefined when the framing is not one the relay reads. */
export function answerReader(
  framing: AnswerFraming,
  onValue: (value: unknown) => void,
): AnswerReader | undefined {
  switch (framing) {
    case "events":
      return new EventStreamReader(onValue);
    case "json":
      return new JsonReader(onValue);
    case "unread":
      return undefined;
  }
}
