// A pseudo-terminal for tests of interactive commands (`warden shell`): a small Python program
// starts the command on a pty of its own and takes lines on stdin, `D <base64>` for bytes typed
// and `W <rows> <cols>` for a resize (which the kernel signals to the command as SIGWINCH), and
// copies the terminal's output to its stdout. It is not the runner's ptyProgram on purpose: the
// terminal a test drives `warden shell` through must not be the code under test.
import { spawn } from "node:child_process";

const DRIVER = `
import base64, fcntl, os, pty, select, struct, sys, termios
rows, cols = int(sys.argv[1]), int(sys.argv[2])
pid, master = pty.fork()
if pid == 0:
    fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    os.execvp(sys.argv[3], sys.argv[3:])
fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
buf = b""
inputs = [0, master]
while True:
    ready, _, _ = select.select(inputs, [], [])
    if master in ready:
        try:
            data = os.read(master, 65536)
        except OSError:
            data = b""
        if not data:
            break
        os.write(1, data)
    if 0 in ready:
        data = os.read(0, 65536)
        if not data:
            inputs.remove(0)
        buf += data
        while b"\\n" in buf:
            line, buf = buf.split(b"\\n", 1)
            if line.startswith(b"D "):
                os.write(master, base64.b64decode(line[2:]))
            elif line.startswith(b"W "):
                r, c = line[2:].split()
                fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", int(r), int(c), 0, 0))
                os.kill(pid, 28)
_, status = os.waitpid(pid, 0)
sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
`;

export interface PtyRun {
  /** Types `text` on the terminal. */
  type(text: string): void;
  /** Gives the terminal a new size. */
  resize(rows: number, cols: number): void;
  /** Everything the terminal showed so far. */
  output(): string;
  /** Resolves once the output matches `pattern` (after `from` characters), or rejects after `ms`. */
  waitFor(pattern: RegExp, ms?: number, from?: number): Promise<string>;
  readonly exit: Promise<number | null>;
  kill(): void;
}

export function startInPty(
  argv: readonly string[],
  options: { env: Record<string, string>; rows?: number; cols?: number },
): PtyRun {
  const child = spawn(
    "python3",
    ["-c", DRIVER, String(options.rows ?? 24), String(options.cols ?? 80), ...argv],
    { env: options.env, stdio: ["pipe", "pipe", "inherit"] },
  );
  let shown = "";
  const waiters = new Set<() => void>();
  child.stdout.on("data", (chunk: Buffer) => {
    shown += chunk.toString("utf8");
    for (const wake of waiters) wake();
  });
  const exit = new Promise<number | null>((resolve) =>
    child.once("close", (code) => {
      resolve(code);
    }),
  );
  return {
    type(text) {
      child.stdin.write(`D ${Buffer.from(text).toString("base64")}\n`);
    },
    resize(rows, cols) {
      child.stdin.write(`W ${rows} ${cols}\n`);
    },
    output: () => shown,
    waitFor(pattern, ms = 20_000, from = 0) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          const match = pattern.exec(shown.slice(from));
          if (match !== null) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(match[0]);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the terminal never showed ${pattern}; it showed:\n${shown}`));
        }, ms);
        waiters.add(check);
        check();
      });
    },
    exit,
    kill() {
      child.kill("SIGKILL");
    },
  };
}
