// How a running task shows itself to the person who started it. On a terminal: one status line,
// redrawn in place with the time since the start and the latest thing the guest or the agent
// did (a progress line, an agent event, a command's output line), warden's notes above it.
// Elsewhere: labelled log lines. Every text is cleaned first; the guest's lines are sandbox text.
import type { Writable } from "node:stream";
import { durationText } from "../lang/index.js";
import { cleanLine, cutText, Log } from "../protocol/index.js";
import { HOST_LIMITS } from "./limits.js";

export interface Reporter {
  /** One line of the guest's progress (already cleaned; cleaned again here all the same). */
  progress(line: string): void;
  /** One of warden's own lines. */
  note(text: string): void;
  /** Something the user should know: an unapplied limit, no isolation. */
  warn(text: string): void;
  /** The task is over: the status line is cleared. */
  done(): void;
}

export interface ReporterOptions {
  /** Where progress goes: the terminal's stderr, usually. */
  out: Writable & { isTTY?: boolean; columns?: number };
  taskId: string;
  /** The id each line shows: the store's unique prefix of taskId (Tasks.shortId); 8 characters if not given. */
  shortId?: string;
  /** Show nothing at all (for --quiet). */
  quiet?: boolean;
  /** Forces the terminal or the plain form; by default `out.isTTY` decides. */
  tty?: boolean;
  /** The clock the elapsed time is read from (tests pass their own). */
  now?: () => number;
}

/** Shows nothing: for --quiet and for library callers. */
export const SILENT_REPORTER: Reporter = {
  progress: () => undefined,
  note: () => undefined,
  warn: () => undefined,
  done: () => undefined,
};

/** The status line is redrawn at most this often: a flood of progress must not flood the tty. */
const REDRAW_MS = 100;
/** The status line's elapsed time moves on this often while nothing else redraws it. */
const TICK_MS = 1000;
/** The shown id when the caller gives none: the store's floor for a shown id. */
const DEFAULT_SHORT_ID = 8;
/** A terminal width when the stream does not say. */
const DEFAULT_COLUMNS = 80;
/** Erase the line and return to its start: the only control sequence warden writes. */
const CLEAR_LINE = "\r\x1b[2K";

class TtyReporter implements Reporter {
  #status = "";
  #shown = false;
  #lastDraw = 0;
  #pending: NodeJS.Timeout | undefined;
  #ticker: NodeJS.Timeout | undefined;
  readonly #shortId: string;
  readonly #now: () => number;
  readonly #started: number;
  /** Cuts the status by what a person sees as characters, never inside one. */
  readonly #segmenter = new Intl.Segmenter();

  constructor(
    private readonly out: ReporterOptions["out"],
    shortId: string,
    now: () => number,
  ) {
    this.#shortId = shortId;
    this.#now = now;
    this.#started = now();
  }

  progress(line: string): void {
    this.#status = cleanLine(line);
    if (this.#ticker === undefined) {
      this.#ticker = setInterval(() => {
        if (this.#pending === undefined) this.#draw();
      }, TICK_MS);
      // The status line never keeps the process alive: done() or the exit ends it.
      this.#ticker.unref();
    }
    const now = Date.now();
    if (now - this.#lastDraw >= REDRAW_MS) {
      this.#draw();
    } else {
      this.#pending ??= setTimeout(() => {
        this.#pending = undefined;
        this.#draw();
      }, REDRAW_MS);
    }
  }

  note(text: string): void {
    this.#above(`warden[${this.#shortId}]: ${cleanLine(text)}`);
  }

  warn(text: string): void {
    this.#above(`warden[${this.#shortId}]: warning: ${cleanLine(text)}`);
  }

  done(): void {
    if (this.#pending !== undefined) clearTimeout(this.#pending);
    this.#pending = undefined;
    clearInterval(this.#ticker);
    this.#ticker = undefined;
    if (this.#shown) this.out.write(CLEAR_LINE);
    this.#shown = false;
  }

  #above(line: string): void {
    this.out.write((this.#shown ? CLEAR_LINE : "") + line + "\n");
    this.#shown = false;
    if (this.#status !== "") this.#draw();
  }

  #draw(): void {
    this.#lastDraw = Date.now();
    const columns = Math.max(20, this.out.columns ?? DEFAULT_COLUMNS);
    const prefix = `[${this.#shortId}] ${durationText(this.#now() - this.#started)}  `;
    // One column is left free so the line never wraps, which would break the redraw.
    const room = columns - prefix.length - 1;
    let text = "";
    let width = 0;
    for (const { segment } of this.#segmenter.segment(this.#status)) {
      if (++width > room) break;
      text += segment;
    }
    this.out.write(CLEAR_LINE + prefix + text);
    this.#shown = true;
  }
}

class LineReporter implements Reporter {
  readonly #log: Log;
  #progressLines = 0;

  constructor(out: Writable, taskId: string, shortId: string) {
    this.#log = new Log(out, taskId, { shortId });
  }

  progress(line: string): void {
    // The whole guest log is in results/guest.log; the terminal gets the start of a flood only.
    this.#progressLines++;
    if (this.#progressLines < HOST_LIMITS.progressEvents) this.#log.line("guest", line);
    else if (this.#progressLines === HOST_LIMITS.progressEvents) {
      this.#log.line("warden", "further guest lines are only in results/guest.log (`warden logs`)");
    }
  }

  note(text: string): void {
    this.#log.line("warden", text);
  }

  warn(text: string): void {
    this.#log.line("warning", text);
  }

  done(): void {
    // Plain lines leave nothing to clear.
  }
}

/** The reporter for a stream: live on a terminal, labelled lines elsewhere. */
export function makeReporter(options: ReporterOptions): Reporter {
  if (options.quiet === true) return SILENT_REPORTER;
  const tty = options.tty ?? options.out.isTTY === true;
  const shortId = options.shortId ?? options.taskId.slice(0, DEFAULT_SHORT_ID);
  if (shortId === "" || !options.taskId.startsWith(shortId)) {
    throw new TypeError(`not a prefix of the task id for a reporter: ${JSON.stringify(shortId)}`);
  }
  return tty
    ? new TtyReporter(options.out, shortId, options.now ?? Date.now)
    : new LineReporter(options.out, options.taskId, shortId);
}

/** Cuts a text shown in a one-line summary. */
export function shortText(text: string, bytes = 200): string {
  const { text: cut, cut: wasCut } = cutText(cleanLine(text), bytes);
  return wasCut ? cut + "…" : cut;
}
