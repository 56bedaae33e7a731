// A real nats-server with JetStream for a test: on a free port of 127.0.0.1 (or of the address
// given), with its own storage directory, stopped and its directory removed when done.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, NatsProcess } from "./natsProcess.js";

export { natsServerMissing } from "./natsProcess.js";

export interface NatsServerOptions {
  /** The address it listens on (default 127.0.0.1), e.g. the host's end of a test's veth. */
  host?: string;
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

  static async start(options: NatsServerOptions = {}): Promise<NatsServer> {
    const host = options.host ?? "127.0.0.1";
    const storeDir = await mkdtemp(join(tmpdir(), "warden-nats-"));
    try {
      const port = await freePort(host);
      const args = ["-a", host, "-p", String(port), "-js", "-sd", storeDir];
      const process = await NatsProcess.start(args, host, port);
      return new NatsServer(process, `nats://${host}:${port}`, storeDir);
    } catch (error) {
      await rm(storeDir, { recursive: true, force: true });
      throw error;
    }
  }

  async stop(): Promise<void> {
    await this.#process.stop();
    await rm(this.storeDir, { recursive: true, force: true });
  }
}
