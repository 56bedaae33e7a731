// Labelled log lines: every line says when, what and which task, and text from the sandbox is
// cleaned and written one whole line at a time, so that it can never pass for a line of warden's.
import type { Writable } from "node:stream";
import { cleanText, cutText } from "./clean.js";
import { LIMITS } from "./limits.js";

export interface LogOptions {
  /** The clock; tests pass a fixed one. */
  now?: () => Date;
  /**
   * The id each label shows, a prefix of the task id. By default its first 8 characters; the
   * host passes the prefix that is unique in its store, since ids made close together share more.
   */
  shortId?: string;
}

/** A label is one short word of warden's own: letters, digits, `.`, `_`, `-` and `/`. */
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._/-]*$/;
/** A task id as shown: printable ASCII without spaces or brackets. */
const TASK_ID_TEXT = /^[!-Z\\^-~]+$/;
const SHORT_ID_LENGTH = 8;
/** Says that the rest of a line was dropped. */
const CUT_MARK = " [cut]";
const NEWLINE = 0x0a;
const CR = 0x0d;

function two(n: number): string {
  return String(n).padStart(2, "0");
}

/**
 * The log of one task. Each line is `HH:MM:SS label[short-id]: text` in local time, the text
 * cleaned with cleanText and cut so that the whole line is at most LIMITS.logLineBytes bytes.
 */
export class Log {
  private readonly emit: (line: string) => void;
  private readonly shortId: string;
  private readonly now: () => Date;

  /**
   * `out` is a stream (each line is written with its newline, without waiting for drain: a log
   * is small next to what it describes) or a function given each line without its newline.
   */
  constructor(out: Writable | ((line: string) => void), taskId: string, options: LogOptions = {}) {
    if (!TASK_ID_TEXT.test(taskId))
      throw new TypeError(`not a task id for a log: ${JSON.stringify(taskId)}`);
    const shown = options.shortId ?? taskId.slice(0, SHORT_ID_LENGTH);
    if (shown === "" || !taskId.startsWith(shown))
      throw new TypeError(`not a prefix of the task id for a log: ${JSON.stringify(shown)}`);
    this.shortId = shown;
    this.emit = typeof out === "function" ? out : (line) => void out.write(line + "\n");
    this.now = options.now ?? (() => new Date());
  }

  /** Writes `text` under `label`, one labelled line per line of it. */
  line(label: string, text: string | Uint8Array): void {
    const prefix = this.prefix(label);
    const lines = cleanText(text).split("\n");
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
    for (const line of lines) this.write(prefix, line, false);
  }

  /** A writer for a stream of text from the sandbox, such as the guest's stderr. */
  writer(label: string): LogWriter {
    this.prefix(label);
    return new LogWriter((bytes, cut) => {
      this.write(this.prefix(label), cleanText(bytes), cut);
    });
  }

  private prefix(label: string): string {
    if (!LABEL.test(label) || label.length > LIMITS.logLabelBytes) {
      throw new TypeError(`not a log label: ${JSON.stringify(label)}`);
    }
    const at = this.now();
    const time = `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
    return `${time} ${label}[${this.shortId}]: `;
  }

  private write(prefix: string, text: string, cut: boolean): void {
    // The prefix is ASCII, so its length is its size in bytes.
    const room = LIMITS.logLineBytes - prefix.length;
    let body = text;
    let wasCut = cut;
    if (Buffer.byteLength(body) > room || wasCut) {
      const fitted = cutText(body, room - CUT_MARK.length);
      body = fitted.text;
      wasCut ||= fitted.cut;
    }
    this.emit(prefix + body + (wasCut ? CUT_MARK : ""));
  }
}

/**
 * Turns a stream of bytes or text into labelled lines. A CRLF counts as one newline; a partial
 * line waits for its newline or end(), except that one longer than a log line goes out at once,
 * cut, and the rest of it up to its newline is dropped. A write after end() goes out at once,
 * so nothing is lost.
 */
export class LogWriter {
  private partial: Uint8Array[] = [];
  private partialBytes = 0;
  /** Dropping the rest of a line that was already written cut. */
  private dropping = false;
  private ended = false;

  /** Made by Log.writer; `send` gets each raw line without its newline, `cut` when shortened. */
  constructor(private readonly sendLine: (bytes: Uint8Array, cut: boolean) => void) {}

  write(chunk: string | Uint8Array): void {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : chunk;
    let start = 0;
    while (start < bytes.length) {
      const newline = bytes.indexOf(NEWLINE, start);
      const end = newline === -1 ? bytes.length : newline;
      this.take(bytes.subarray(start, end));
      if (newline === -1) break;
      this.lineEnd();
      start = newline + 1;
    }
    if (this.ended) this.flush();
  }

  /** Writes what is left of the last line. */
  end(): void {
    this.flush();
    this.ended = true;
  }

  /** Keeps part of a line, up to a little more than a log line holds. */
  private take(piece: Uint8Array): void {
    if (this.dropping || piece.length === 0) return;
    // Kept: enough to fill a log line after cleaning (which never makes text longer), plus a
    // byte past it so that the line is known to be too long.
    const room = LIMITS.logLineBytes + 1 - this.partialBytes;
    if (piece.length < room) {
      // A copy: the caller may reuse its buffer once write() returns.
      this.partial.push(Buffer.from(piece));
      this.partialBytes += piece.length;
      return;
    }
    this.partial.push(piece.subarray(0, room));
    this.partialBytes += room;
    this.send(true);
    this.dropping = true;
  }

  private lineEnd(): void {
    if (this.dropping) {
      this.dropping = false;
      return;
    }
    this.send(false);
  }

  private flush(): void {
    if (this.dropping) {
      this.dropping = false;
      return;
    }
    if (this.partialBytes > 0) this.send(false);
  }

  private send(cut: boolean): void {
    let line = Buffer.concat(this.partial, this.partialBytes);
    this.partial = [];
    this.partialBytes = 0;
    if (cut) line = line.subarray(0, characterStart(line, line.length - 1));
    else if (line[line.length - 1] === CR) line = line.subarray(0, line.length - 1);
    this.sendLine(line, cut);
  }
}

/** The index at or before `at` where a UTF-8 character starts, so a cut splits none. */
function characterStart(bytes: Uint8Array, at: number): number {
  let i = at;
  for (let k = 0; k < 3 && i > 0 && ((bytes[i] ?? 0) & 0xc0) === 0x80; k++) i--;
  return i;
}
