// A raw client of the guest-to-host channel for tests: it writes whatever bytes a test gives it
// (hostile ones included) and reads the host's answers line by line.
import { connect, type Socket } from "node:net";

export class RawChannelClient {
  readonly socket: Socket;
  readonly #lines: string[] = [];
  readonly #waiters: (() => void)[] = [];
  #partial = "";
  #closed = false;
  readonly closed: Promise<void>;

  private constructor(socket: Socket) {
    this.socket = socket;
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      const parts = (this.#partial + chunk).split("\n");
      this.#partial = parts.pop() ?? "";
      this.#lines.push(...parts);
      this.#wake();
    });
    socket.on("error", () => undefined);
    this.closed = new Promise((resolve) =>
      socket.once("close", () => {
        this.#closed = true;
        this.#wake();
        resolve();
      }),
    );
  }

  static async connect(path: string): Promise<RawChannelClient> {
    const socket = connect(path);
    await new Promise<void>((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("error", reject);
    });
    return new RawChannelClient(socket);
  }

  get isClosed(): boolean {
    return this.#closed;
  }

  write(bytes: string | Uint8Array): void {
    this.socket.write(bytes);
  }

  /** Sends one request as a JSON line. */
  send(request: Record<string, unknown>): void {
    this.socket.write(JSON.stringify(request) + "\n");
  }

  /** The next answer, parsed; rejects when the connection closes first or after `ms`. */
  async next(ms = 10_000): Promise<Record<string, unknown>> {
    const giveUp = Date.now() + ms;
    for (;;) {
      const line = this.#lines.shift();
      if (line !== undefined) return JSON.parse(line) as Record<string, unknown>;
      if (this.#closed) throw new Error("the channel closed before an answer came");
      if (Date.now() >= giveUp) throw new Error("no answer in time");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, giveUp - Date.now());
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Sends one request and returns its answer. */
  async ask(request: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.send(request);
    return this.next();
  }

  /** Every answer until the connection closes (or `ms` passes). */
  async rest(ms = 10_000): Promise<Record<string, unknown>[]> {
    const out: Record<string, unknown>[] = [];
    for (;;) {
      try {
        out.push(await this.next(ms));
      } catch {
        return out;
      }
    }
  }

  close(): void {
    this.socket.destroy();
  }

  #wake(): void {
    for (const wake of this.#waiters.splice(0)) wake();
  }
}
