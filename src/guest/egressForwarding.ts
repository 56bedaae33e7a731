// The runner's half of the network gate: a loopback listener for each egress socket the host
// bound into the sandbox, and the environment that points the agent at them.
import { access } from "node:fs/promises";
import { join } from "node:path";
import { EGRESS_SOCKETS, egressEnvironment, GUEST_PORTS } from "../protocol/index.js";
import { forwardPorts, type ForwardRule } from "./forwardPorts.js";
import type { EgressPorts } from "./options.js";

export interface EgressForwarding {
  /** The proxy and relay variables for the agent; empty when the host gave no sockets. */
  readonly env: Record<string, string>;
  /** The relay forwarder's base URL (`http://127.0.0.1:PORT`), when the host gave a relay. */
  readonly relayUrl?: string;
  close(): Promise<void>;
}

const NONE: EgressForwarding = { env: {}, close: () => Promise.resolve() };

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a forwarder for each socket present in `socketsDir`. Without sockets the agent gets no
 * proxy variables: the sandbox has no network at all, and saying otherwise would only mislead.
 */
export async function startEgressForwarding(
  socketsDir: string | undefined,
  mode: EgressPorts,
): Promise<EgressForwarding> {
  if (socketsDir === undefined) return NONE;
  const present: ("proxy" | "relay")[] = [];
  for (const kind of ["proxy", "relay"] as const) {
    if (await exists(join(socketsDir, EGRESS_SOCKETS[kind]))) present.push(kind);
  }
  if (present.length === 0) return NONE;
  const rules: ForwardRule[] = present.map((kind) => ({
    host: "127.0.0.1",
    port: mode === "fixed" ? GUEST_PORTS[kind] : 0,
    socketPath: join(socketsDir, EGRESS_SOCKETS[kind]),
  }));
  const forwarded = await forwardPorts(rules);
  const ports: { proxy?: number; relay?: number } = {};
  present.forEach((kind, i) => {
    ports[kind] = forwarded.ports[i];
  });
  const close = (): Promise<void> => forwarded.close();
  const env = egressEnvironment(ports);
  if (ports.relay === undefined) return { env, close };
  return { env, relayUrl: `http://127.0.0.1:${ports.relay}`, close };
}
