// The network gate of one task: its proxy and its relay, on unix sockets in a directory only
// the task's owner can enter, started and closed together.
import { chmod, lstat, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { EGRESS_SOCKETS } from "../protocol/index.js";
import { EgressDirError } from "./errors.js";
import { EGRESS_LIMITS } from "./limits.js";
import { startProxy, type RunningProxy } from "./startProxy.js";
import { startRelay, type RelayOptions, type RunningRelay } from "./startRelay.js";

export { EGRESS_SOCKETS };

export interface EgressOptions {
  /** The task's socket directory: created 0700 if missing, made 0700 if not. */
  readonly dir: string;
  /** proxy.log, appended to. */
  readonly log: string;
  readonly allow: readonly string[];
  readonly presets?: readonly string[];
  /** The API relay; none when the host has no credential to give. */
  readonly relay?: Omit<RelayOptions, "socketPath">;
  /** The setup's wider list, while setup runs (see ProxyOptions.setup). */
  readonly setup?: { readonly allow: readonly string[]; readonly presets: readonly string[] };
}

export interface RunningEgress {
  readonly dir: string;
  readonly proxySocket: string;
  /** Undefined when no relay was asked for. */
  readonly relaySocket: string | undefined;
  /** Closes the relay and the proxy and removes their sockets. */
  close(): Promise<void>;
  /** Narrows the proxy to the agent's list for good (RunningProxy.endSetup). */
  endSetup(): void;
}

/** Makes the directory 0700 and checks it is a real directory, not a link to elsewhere. */
async function prepareDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const stat = await lstat(dir);
  if (!stat.isDirectory()) {
    throw new EgressDirError(`the egress directory ${dir} is not a directory`, {
      hint: "remove it; warden makes the directory itself",
    });
  }
  await chmod(dir, 0o700);
}

function socketPath(dir: string, name: string): string {
  const path = join(dir, name);
  if (Buffer.byteLength(path) > EGRESS_LIMITS.socketPathBytes) {
    throw new EgressDirError(
      `the socket path ${path} is over ${EGRESS_LIMITS.socketPathBytes} bytes, too long for a unix socket`,
      { hint: "use a data directory with a shorter path (--data-dir or WARDEN_DATA_DIR)" },
    );
  }
  return path;
}

/**
 * Starts the proxy and, when asked, the relay. Sockets left by an earlier attach of the same
 * task are removed first: the caller holds the task's lock, so nothing else owns them.
 */
export async function startEgress(options: EgressOptions): Promise<RunningEgress> {
  const proxySocket = socketPath(options.dir, EGRESS_SOCKETS.proxy);
  const relaySocket = options.relay && socketPath(options.dir, EGRESS_SOCKETS.relay);
  await prepareDir(options.dir);
  await rm(proxySocket, { force: true });
  if (relaySocket !== undefined) await rm(relaySocket, { force: true });

  const proxy: RunningProxy = await startProxy({
    socketPath: proxySocket,
    allow: options.allow,
    presets: options.presets ?? [],
    log: options.log,
    ...(options.setup === undefined ? {} : { setup: options.setup }),
  });
  let relay: RunningRelay | undefined;
  try {
    await chmod(proxySocket, 0o600);
    if (options.relay && relaySocket !== undefined) {
      relay = await startRelay({ ...options.relay, socketPath: relaySocket });
      await chmod(relaySocket, 0o600);
    }
  } catch (error) {
    await relay?.close();
    await proxy.close();
    throw error;
  }
  return {
    dir: options.dir,
    proxySocket,
    relaySocket,
    endSetup: () => {
      proxy.endSetup();
    },
    close: async () => {
      await Promise.all([relay?.close(), proxy.close()]);
      await rm(proxySocket, { force: true });
      if (relaySocket !== undefined) await rm(relaySocket, { force: true });
    },
  };
}
