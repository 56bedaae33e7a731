// One nats-server process for a test: spawned with the given arguments, waited for until it
// accepts connections, stopped (SIGTERM, then SIGKILL) or killed outright, its log kept for the
// failure message. NatsServer (one server) and NatsCluster (three) are made of these.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createServer, connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { skipWhen, type SkipReason } from "./skipWhen.js";

/** How long a server may take to accept connections before the test fails. */
const START_TIMEOUT_MS = 15_000;
/** How long a stopping server may take before it is killed. */
const STOP_GRACE_MS = 5_000;
/** How much of a server's log is kept for the message of a failed start. */
const LOG_KEPT_CHARS = 16_384;
/** The pause between two probes of a starting server's port. */
const PROBE_PAUSE_MS = 50;

/** The skip option for tests that need nats-server: the reason when it is not installed. */
export function natsServerMissing(): SkipReason {
  const probe = spawnSync("nats-server", ["--version"], { encoding: "utf8" });
  return skipWhen(probe.error === undefined ? false : "nats-server is not installed");
}

/** A port of `host` that nothing listens on now. */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port);
        else reject(new Error("no port"));
      });
    });
  });
}

/** How nats-server says that a port it was given is taken. */
const PORT_IN_USE = /address already in use/;
/** Starts, each on other free ports, before a port taken meanwhile fails the test. */
const PORT_ATTEMPTS = 3;

/**
 * Runs `start` (which picks its ports with freePort) again when a server it started found a port
 * taken. A port is free when it is picked and taken only when the server starts: another process
 * (other test files run at the same time) may take it between.
 */
export async function onFreePorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      const portTaken = error instanceof Error && PORT_IN_USE.test(error.message);
      if (!portTaken || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

async function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => {
      resolve(false);
    });
  });
}

export class NatsProcess {
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #log = "";

  private constructor(child: ChildProcess) {
    this.#child = child;
    this.#exited = new Promise((resolve) =>
      child.once("exit", () => {
        resolve();
      }),
    );
    child.stderr?.on("data", (chunk: Buffer) => {
      this.#log = (this.#log + chunk.toString()).slice(-LOG_KEPT_CHARS);
    });
  }

  /**
   * Spawns nats-server with `args` (and `env` beside this process's environment) and waits until
   * `host:port` accepts connections.
   */
  static async start(
    args: readonly string[],
    host: string,
    port: number,
    env: Record<string, string> = {},
  ): Promise<NatsProcess> {
    const child = spawn("nats-server", args, {
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, ...env },
    });
    const server = new NatsProcess(child);
    const giveUpAt = Date.now() + START_TIMEOUT_MS;
    while (!(await accepts(host, port))) {
      if (child.exitCode !== null || Date.now() > giveUpAt) {
        await server.stop();
        throw new Error(`nats-server did not start on ${host}:${port}:\n${server.#log}`);
      }
      await sleep(PROBE_PAUSE_MS);
    }
    return server;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** The end of the server's log, for a failure's message. */
  get log(): string {
    return this.#log;
  }

  /** Kills the server at once, as a crash would: SIGKILL, no shutdown of its own. */
  async kill(): Promise<void> {
    if (this.running) this.#child.kill("SIGKILL");
    await this.#exited;
  }

  async stop(): Promise<void> {
    if (this.running) {
      this.#child.kill("SIGTERM");
      const killed = sleep(STOP_GRACE_MS).then(() => this.#child.kill("SIGKILL"));
      await Promise.race([this.#exited, killed]);
      await this.#exited;
    }
  }
}
