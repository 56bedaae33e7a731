// A real nats-server with JetStream for a test: on a free port of 127.0.0.1 (or of the address
// given), with its own storage directory, stopped and its directory removed when done.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, NatsProcess, onFreePorts } from "./natsProcess.js";

export { natsServerMissing } from "./natsProcess.js";

export interface NatsServerOptions {
  /** The address it listens on (default 127.0.0.1), e.g. the host's end of a test's veth. */
  host?: string;
  /**
   * The text of a nats-server config file (an authorization block, say), added to one that sets
   * the address and JetStream's directory.
   */
  config?: string;
  /** The environment the config's `$VARIABLES` are read from. */
  env?: Record<string, string>;
}

export class NatsServer {
  readonly #process: NatsProcess;
  readonly url: string;
  readonly storeDir: string;

  private constructor(process: NatsProcess, url: string, storeDir: string) {
    this.#process = process;
    this.url = url;
    this.storeDir = storeDir;
  }

  /** Starts a server on a free port, again on another when the port was taken meanwhile. */
  static async start(options: NatsServerOptions = {}): Promise<NatsServer> {
    return onFreePorts(() => NatsServer.startOnFreePort(options));
  }

  private static async startOnFreePort(options: NatsServerOptions): Promise<NatsServer> {
    const host = options.host ?? "127.0.0.1";
    const storeDir = await mkdtemp(join(tmpdir(), "warden-nats-"));
    try {
      const port = await freePort(host);
      let args = ["-a", host, "-p", String(port), "-js", "-sd", storeDir];
      if (options.config !== undefined) {
        const file = join(storeDir, "server.conf");
        await writeFile(
          file,
          `listen: "${host}:${port}"\njetstream { store_dir: ${JSON.stringify(join(storeDir, "js"))} }\n${options.config}\n`,
        );
        args = ["-c", file];
      }
      const process = await NatsProcess.start(args, host, port, options.env);
      return new NatsServer(process, `nats://${host}:${port}`, storeDir);
    } catch (error) {
      await rm(storeDir, { recursive: true, force: true });
      throw error;
    }
  }

  /** What the server wrote to stderr lately (its permission violations, for one). */
  get log(): string {
    return this.#process.log;
  }

  async stop(): Promise<void> {
    await this.#process.stop();
    await rm(this.storeDir, { recursive: true, force: true });
  }
}
