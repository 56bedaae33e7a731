// The guest's stderr as the host keeps it: each line cleaned (it is sandbox text), written to
// results/guest.log under the label `guest`, appended as a `progress` event and shown by the
// reporter. warden's own notes go into the same log under the label `warden`, and a command
// agent's output lines under `stdout` and `stderr` as they arrive. Both the log and
// the events are bounded, so a flood of stderr costs the host nothing but the reading.
import { constants, createWriteStream, type WriteStream } from "node:fs";
import type { Readable } from "node:stream";
import { cleanText, Log, LogWriter } from "../protocol/index.js";
import { openNoFollowSync } from "../store/index.js";
import { HOST_LIMITS } from "./limits.js";
import type { Reporter } from "./reporter.js";

/** Where a guest line goes besides the log: the task's events. */
export type EventSink = (type: string, data: Record<string, unknown>) => void;

const CUT_MARK = " [cut]";

export class GuestProgress {
  readonly #file: WriteStream;
  readonly #log: Log;
  readonly #event: EventSink;
  readonly #reporter: Reporter;
  #logBytes = 0;
  #logFull = false;
  #events = 0;
  readonly #onLine: ((text: string) => void) | undefined;

  /**
   * `shortId` is the id each line of the log shows: the store's unique prefix of taskId.
   * `onLine` also sees each cleaned guest line (a traced attach reads the runner's phases).
   */
  constructor(
    path: string,
    taskId: string,
    event: EventSink,
    reporter: Reporter,
    shortId?: string,
    onLine?: (text: string) => void,
  ) {
    this.#onLine = onLine;
    // Appended to, never through a link planted in the log's place (PLANTED_LINK).
    const fd = openNoFollowSync(
      path,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
      0o600,
    );
    this.#file = createWriteStream(path, { fd });
    this.#file.on("error", () => {
      // A log that cannot be written must not stop the task; the events still carry progress.
      this.#logFull = true;
    });
    this.#log = new Log(
      (line) => {
        this.#append(line);
      },
      taskId,
      shortId === undefined ? {} : { shortId },
    );
    this.#event = event;
    this.#reporter = reporter;
  }

  /** Reads the guest's stderr to its end, one whole line at a time. */
  async read(stderr: Readable): Promise<void> {
    const writer = new LogWriter((bytes, cut) => {
      this.#guestLine(cleanText(bytes) + (cut ? CUT_MARK : ""));
    });
    try {
      for await (const chunk of stderr) {
        writer.write(chunk as Uint8Array);
      }
    } catch {
      // A pipe torn down by a stop: what was read is kept.
    }
    writer.end();
  }

  /**
   * One line a command agent wrote on `stream`, for the log under that label (the channel has
   * already recorded it as an event, and the caller shows it).
   */
  output(stream: "stdout" | "stderr", text: string): void {
    this.#log.line(stream, text);
  }

  /** One of warden's own lines, for the log (the reporter shows it separately). */
  note(text: string): void {
    this.#log.line("warden", text);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.#file.end(resolve);
    });
  }

  #guestLine(text: string): void {
    this.#onLine?.(text);
    this.#log.line("guest", text);
    if (this.#events < HOST_LIMITS.progressEvents) {
      this.#events++;
      this.#event("progress", { line: text });
      if (this.#events === HOST_LIMITS.progressEvents) {
        this.#event("progress_dropped", {
          after: HOST_LIMITS.progressEvents,
          see: "results/guest.log",
        });
      }
    }
    this.#reporter.progress(text);
  }

  #append(line: string): void {
    if (this.#logFull) return;
    const bytes = Buffer.byteLength(line) + 1;
    if (this.#logBytes + bytes > HOST_LIMITS.guestLogBytes) {
      this.#logFull = true;
      this.#file.write(
        `[guest.log reached ${HOST_LIMITS.guestLogBytes} bytes; the rest dropped]\n`,
      );
      return;
    }
    this.#logBytes += bytes;
    this.#file.write(line + "\n");
  }
}
