// The command's own stdout and stderr, written straight to their file descriptors. Node makes
// process.stdout and process.stderr on first use, and for a pipe (`warden ls | less`, a script
// reading a verb's output) that loads its network streams, about 10 ms of every command's start
// that a blocking write(2) of the same bytes does without. A verb that needs a stream itself (to
// pipe a session's output into it, or to read a terminal's size) takes it with stream(); from then
// on every write goes through that stream, so the bytes stay in the order they were written.
// Node writes to a pipe, a file or a terminal synchronously on Linux too, so a write that waits
// here for a slow reader would have waited there. Every part of the command writes through these
// two, never through process.stdout or process.stderr (the lint config holds src/cli to it).
import { fstatSync, statSync, writeSync, type Stats } from "node:fs";
import { isatty } from "node:tty";
import { EXIT } from "./exitCodes.js";

/** One of the process's two output descriptors. */
export class StandardStream {
  /** The stream every write goes through once a verb asked for it or a direct write could not. */
  #stream: NodeJS.WriteStream | undefined;
  #terminal: boolean | undefined;

  constructor(
    private readonly fd: 1 | 2,
    private readonly open: () => NodeJS.WriteStream,
  ) {}

  /** Writes `text` whole before it returns, unless the descriptor would block (see stream()). */
  write(text: string | Uint8Array): void {
    if (this.#stream !== undefined) {
      this.#stream.write(text);
      return;
    }
    const bytes = typeof text === "string" ? Buffer.from(text) : text;
    let written = 0;
    while (written < bytes.byteLength) {
      try {
        written += writeSync(this.fd, bytes, written);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        endIfReaderGone(code);
        // Another process left the descriptor non-blocking and its pipe is full: Node's stream
        // queues what is left and writes it as the reader takes it.
        if (code === "EAGAIN") {
          this.stream().write(bytes.subarray(written));
          return;
        }
        throw error;
      }
    }
  }

  /**
   * Whether the descriptor is a terminal. A pipe, a file or /dev/null is told by fstat(2) alone:
   * only another character device is asked of isatty(), whose node:tty loads node:net.
   */
  get isTTY(): boolean {
    this.#terminal ??= mayBeTerminal(this.fd) && isatty(this.fd);
    return this.#terminal;
  }

  /** The terminal's width in columns; undefined when the descriptor is not a terminal. */
  get columns(): number | undefined {
    return this.isTTY ? this.stream().columns : undefined;
  }

  /** Resolves once every write so far has left the process (at once when none was queued). */
  written(): Promise<void> {
    const stream = this.#stream;
    if (stream === undefined) return Promise.resolve();
    return new Promise((resolve) => {
      stream.write("", () => {
        resolve();
      });
    });
  }

  /** Node's stream for the descriptor: every later write goes through it. */
  stream(): NodeJS.WriteStream {
    if (this.#stream === undefined) {
      const stream = this.open();
      stream.on("error", (error: NodeJS.ErrnoException) => {
        endIfReaderGone(error.code);
        throw error;
      });
      this.#stream = stream;
    }
    return this.#stream;
  }
}

/** A reader that stops early (`warden ls | head`) is not an error of warden's: the command ends. */
function endIfReaderGone(code: string | undefined): void {
  if (code === "EPIPE") process.exit(process.exitCode ?? EXIT.ok);
}

function mayBeTerminal(fd: number): boolean {
  let stats: Stats;
  try {
    stats = fstatSync(fd);
  } catch {
    // A descriptor the parent closed is no terminal; writing to it fails on its own.
    return false;
  }
  return stats.isCharacterDevice() && !isNullDevice(stats);
}

/** Whether `stats` are those of /dev/null, where scripts send what they do not read. */
function isNullDevice(stats: Stats): boolean {
  try {
    return stats.rdev === statSync("/dev/null").rdev;
  } catch {
    return false;
  }
}

/**
 * Ends the process with its exit code once everything written to stdout and stderr has left it.
 * A process that ends by running out of work first frees its whole heap, which after a task's
 * run took about 18 ms (against 7 ms for `node -e 0`); process.exit skips that teardown.
 */
export async function exitWhenWritten(): Promise<void> {
  await standardOut.written();
  await standardError.written();
  process.exit(process.exitCode ?? EXIT.ok);
}

// The process has one fd 1 and one fd 2, as it has one process.stdout: these stand for them.
export const standardOut = new StandardStream(1, () => process.stdout);
export const standardError = new StandardStream(2, () => process.stderr);
