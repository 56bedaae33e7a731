// proxy.log: one line per distinct decision of the proxy, so the user can see what a task
// reached and what it was refused, without a line per connection.
import { constants, createWriteStream, openSync, type WriteStream } from "node:fs";
import { finished } from "node:stream/promises";
import { cleanLine, cutText, LIMITS } from "../protocol/index.js";

export type Verdict = "allow" | "refuse";

export class ProxyLog {
  readonly #stream: WriteStream;
  readonly #seen = new Set<string>();
  readonly #maxEntries: number;
  #full = false;

  /** Appends to `path`, creating it 0600; a link in its place is refused (ELOOP), never followed. */
  constructor(path: string, maxEntries: number) {
    this.#maxEntries = maxEntries;
    const flags =
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
    this.#stream = createWriteStream(path, { fd: openSync(path, flags, 0o600) });
    // The log is a record for the user: a failed write (a full disk) must not cut the
    // agent's connections, so the error is dropped here and the proxy serves on.
    this.#stream.on("error", () => undefined);
  }

  /**
   * Writes `time verdict target detail` unless the same verdict, target and detail were
   * written before. Every part is cleaned: the target and detail may come from the sandbox.
   */
  record(verdict: Verdict, target: string, detail: string): void {
    const key = `${verdict}\0${target}\0${detail}`;
    if (this.#seen.has(key) || this.#full) return;
    if (this.#seen.size >= this.#maxEntries) {
      this.#full = true;
      this.#write(`notice: over ${this.#maxEntries} distinct targets; no more are written`);
      return;
    }
    this.#seen.add(key);
    this.#write(`${verdict} ${target} ${detail}`);
  }

  #write(text: string): void {
    const line = cutText(cleanLine(text), LIMITS.logLineBytes).text;
    this.#stream.write(`${new Date().toISOString()} ${line}\n`);
  }

  /** Flushes and closes the file. */
  async close(): Promise<void> {
    this.#stream.end();
    await finished(this.#stream).catch(() => undefined);
  }
}
