// A real nats-server with JetStream for a test: on a free port of 127.0.0.1, with its own
// storage directory, stopped (SIGTERM, then SIGKILL) and its directory removed when done.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { skipWhen, type SkipReason } from "./skipWhen.js";

/** How long a server may take to accept connections before the test fails. */
const START_TIMEOUT_MS = 15_000;
/** How long a stopping server may take before it is killed. */
const STOP_GRACE_MS = 5_000;

/** The skip option for tests that need nats-server: the reason when it is not installed. */
export function natsServerMissing(): SkipReason {
  const probe = spawnSync("nats-server", ["--version"], { encoding: "utf8" });
  return skipWhen(probe.error === undefined ? false : "nats-server is not installed");
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("no port"));
      });
    });
  });
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      resolve(false);
    });
  });
}

export class NatsServer {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  readonly url: string;
  readonly storeDir: string;
  #log = "";

  private constructor(child: ChildProcess, port: number, storeDir: string) {
    this.#child = child;
    this.url = `nats://127.0.0.1:${port}`;
    this.storeDir = storeDir;
    this.#exited = new Promise((resolve) =>
      child.once("exit", () => {
        resolve();
      }),
    );
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#log = (this.#log + chunk.toString()).slice(-16_384);
    });
  }

  /**
   * Starts a server; with `config`, the text of a nats-server config file (an authorization
   * block, say) is added to one that sets the address and JetStream's directory, and `env` is
   * the environment its `$VARIABLES` are read from.
   */
  static async start(
    options: { config?: string; env?: Record<string, string> } = {},
  ): Promise<NatsServer> {
    const storeDir = await mkdtemp(join(tmpdir(), "warden-nats-"));
    const port = await freePort();
    let args = ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir];
    if (options.config !== undefined) {
      const file = join(storeDir, "server.conf");
      await writeFile(
        file,
        `listen: "127.0.0.1:${port}"\njetstream { store_dir: ${JSON.stringify(join(storeDir, "js"))} }\n${options.config}\n`,
      );
      args = ["-c", file];
    }
    const child = spawn("nats-server", args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...options.env },
    });
    const server = new NatsServer(child, port, storeDir);
    const giveUpAt = Date.now() + START_TIMEOUT_MS;
    while (!(await accepts(port))) {
      if (child.exitCode !== null || Date.now() > giveUpAt) {
        await server.stop();
        throw new Error(`nats-server did not start on port ${port}:\n${server.#log}`);
      }
      await sleep(50);
    }
    return server;
  }

  /** What the server wrote to stderr lately (its permission violations, for one). */
  get log(): string {
    return this.#log;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.kill("SIGTERM");
      const killed = sleep(STOP_GRACE_MS).then(() => this.#child.kill("SIGKILL"));
      await Promise.race([this.#exited, killed]);
      await this.#exited;
    }
    await rm(this.storeDir, { recursive: true, force: true });
  }
}
