// What the host puts into the agent's environment for the gate: the proxy variables and the
// API's base URL at the runner's fixed ports (the runner sets them again for the ports it really
// took), and the placeholder key that stands where the real one would be.
import { egressEnvironment, GUEST_PORTS } from "../protocol/index.js";
import { RELAY_APIS, type ApiKind } from "./relayApis.js";

export { GUEST_PORTS };

/**
 * Without a relay there is no base URL and no key at all. With one, the API's base URL
 * variable names the relay's root (for OpenAI too: the relay's upstream carries `/v1`) and the
 * API's key variable holds the placeholder.
 */
export function sandboxEnv(
  placeholderKey: string | undefined,
  api: ApiKind = "anthropic",
): Record<string, string> {
  const proxy = egressEnvironment({ proxy: GUEST_PORTS.proxy });
  if (placeholderKey === undefined) return proxy;
  const { baseVariable, placeholderVariable } = RELAY_APIS[api];
  return {
    ...proxy,
    [baseVariable]: `http://127.0.0.1:${GUEST_PORTS.relay}`,
    [placeholderVariable]: placeholderKey,
  };
}
