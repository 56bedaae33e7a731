// The agent's last stdout line, kept in bounded memory however much the agent prints, because
// an agent's final line is usually its summary (Claude Code's result event with the cost).

const NEWLINE = 0x0a;
const CR = 0x0d;

/**
 * Tracks the last line of a byte stream: the text after the last newline when the stream ends
 * without one, else the text between the last two newlines. A line longer than `max` bytes is
 * remembered only as "too long", so memory stays under about 2 × max.
 */
export class LastLine {
  private current: Buffer[] = [];
  private currentBytes = 0;
  private currentTooLong = false;
  private last: Buffer | "too long" | undefined;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const end = chunk.lastIndexOf(NEWLINE);
    if (end === -1) {
      this.append(chunk);
      return;
    }
    // Only the line the last newline ends and the start of the next can still matter.
    const start = end === 0 ? -1 : chunk.lastIndexOf(NEWLINE, end - 1);
    if (start === -1) {
      this.append(chunk.subarray(0, end));
      this.last = this.take();
    } else {
      this.take();
      this.append(chunk.subarray(start + 1, end));
      this.last = this.take();
    }
    this.append(chunk.subarray(end + 1));
  }

  /** The last line without its line ending, or undefined when there is none or it was too long. */
  value(): Buffer | undefined {
    const line = this.currentBytes > 0 || this.currentTooLong ? this.peek() : this.last;
    if (line === undefined || line === "too long") return undefined;
    const bare = line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, -1) : line;
    return bare.length > this.max ? undefined : bare;
  }

  private append(part: Buffer): void {
    if (part.length === 0 || this.currentTooLong) return;
    this.currentBytes += part.length;
    // One byte of slack for a CR that a CRLF line ending leaves behind.
    if (this.currentBytes > this.max + 1) {
      this.currentTooLong = true;
      this.current = [];
      return;
    }
    this.current.push(Buffer.from(part));
  }

  private peek(): Buffer | "too long" {
    return this.currentTooLong ? "too long" : Buffer.concat(this.current);
  }

  private take(): Buffer | "too long" {
    const line = this.peek();
    this.current = [];
    this.currentBytes = 0;
    this.currentTooLong = false;
    return line;
  }
}
