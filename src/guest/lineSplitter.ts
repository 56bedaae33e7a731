// Splits a byte stream into lines in bounded memory: the agent's stdout (read into events) and
// the host's answers on the channel both arrive in chunks that cut lines anywhere.

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Calls `onLine` with each complete line, without its line ending (LF or CRLF). A line longer
 * than `maxBytes` is never held whole: it is skipped, counted in `overlong`, and `onOverlong`
 * is told as soon as it is over (not when it ends: it may never end), so memory stays under
 * about `maxBytes` however long a line is.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private bytes = 0;
  private skipping = false;
  private skipped = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (line: Buffer) => void,
    private readonly onOverlong: () => void = () => undefined,
  ) {}

  /** Lines skipped for being over the limit. */
  get overlong(): number {
    return this.skipped;
  }

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) {
        this.append(chunk.subarray(start));
        return;
      }
      this.append(chunk.subarray(start, end));
      this.finishLine();
      start = end + 1;
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.bytes > 0 || this.skipping) this.finishLine();
  }

  private append(part: Buffer): void {
    if (part.length === 0 || this.skipping) return;
    // One byte of slack for the CR of a CRLF line ending.
    if (this.bytes + part.length > this.maxBytes + 1) {
      this.skipping = true;
      this.parts = [];
      this.bytes = 0;
      this.skipped += 1;
      this.onOverlong();
      return;
    }
    // A copy: the caller may reuse the chunk's memory once push returns.
    this.parts.push(Buffer.from(part));
    this.bytes += part.length;
  }

  private finishLine(): void {
    if (this.skipping) {
      this.skipping = false;
      return;
    }
    let line =
      this.parts.length === 1 ? (this.parts[0] ?? Buffer.alloc(0)) : Buffer.concat(this.parts);
    this.parts = [];
    this.bytes = 0;
    if (line.length > 0 && line[line.length - 1] === CR) line = line.subarray(0, -1);
    if (line.length > this.maxBytes) {
      this.skipped += 1;
      this.onOverlong();
      return;
    }
    this.onLine(line);
  }
}
