// What the sandbox's environment says about the network: the proxy and the relay on loopback,
// where the runner's forwarded ports listen, and the placeholder key.

/** The loopback ports the runner listens on inside the sandbox. */
export const GUEST_PORTS = {
  /** HTTPS_PROXY and HTTP_PROXY: the CONNECT proxy. */
  proxy: 3128,
  /** ANTHROPIC_BASE_URL: the API relay. */
  relay: 3129,
} as const;

/**
 * The environment the agent gets for the gate. NO_PROXY keeps loopback (the relay and the
 * metadata server) off the proxy, which would refuse it. Without a relay there is no
 * ANTHROPIC_BASE_URL and no key at all.
 */
export function sandboxEnv(placeholderKey: string | undefined): Record<string, string> {
  const proxy = `http://127.0.0.1:${GUEST_PORTS.proxy}`;
  const noProxy = "127.0.0.1,localhost,::1";
  const env: Record<string, string> = {
    HTTPS_PROXY: proxy,
    HTTP_PROXY: proxy,
    https_proxy: proxy,
    http_proxy: proxy,
    NO_PROXY: noProxy,
    no_proxy: noProxy,
  };
  if (placeholderKey !== undefined) {
    env.ANTHROPIC_BASE_URL = `http://127.0.0.1:${GUEST_PORTS.relay}`;
    env.ANTHROPIC_API_KEY = placeholderKey;
  }
  return env;
}
