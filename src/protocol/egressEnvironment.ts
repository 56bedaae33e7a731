// What the agent's environment says about the network inside a sandbox: the proxy and the API
// relay on loopback, where the runner's forwarders listen.
import { GUEST_PORTS } from "./names.js";

/** Loopback stays off the proxy: the relay and the metadata server are there, and it refuses them. */
const NO_PROXY = "127.0.0.1,localhost,::1";

export interface EgressPortsInUse {
  /** The proxy forwarder's port, when the host gave a proxy socket. */
  proxy?: number;
  /** The relay forwarder's port, when the host gave a relay socket. */
  relay?: number;
}

/** The proxy and relay variables for the ports the forwarders listen on. Pure. */
export function egressEnvironment(ports: EgressPortsInUse = GUEST_PORTS): Record<string, string> {
  const env: Record<string, string> = {};
  if (ports.proxy !== undefined) {
    const proxy = `http://127.0.0.1:${ports.proxy}`;
    Object.assign(env, {
      HTTPS_PROXY: proxy,
      HTTP_PROXY: proxy,
      https_proxy: proxy,
      http_proxy: proxy,
      NO_PROXY,
      no_proxy: NO_PROXY,
    });
  }
  if (ports.relay !== undefined) env.ANTHROPIC_BASE_URL = `http://127.0.0.1:${ports.relay}`;
  return env;
}
