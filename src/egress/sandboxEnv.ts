// What the host puts into the agent's environment for the gate: the proxy and relay variables
// at the runner's fixed ports (the runner sets them again for the ports it really took), and
// the placeholder key that stands where the real one would be.
import { egressEnvironment, GUEST_PORTS } from "../protocol/index.js";

export { GUEST_PORTS };

/** Without a relay there is no ANTHROPIC_BASE_URL and no key at all. */
export function sandboxEnv(placeholderKey: string | undefined): Record<string, string> {
  if (placeholderKey === undefined) return egressEnvironment({ proxy: GUEST_PORTS.proxy });
  return { ...egressEnvironment(GUEST_PORTS), ANTHROPIC_API_KEY: placeholderKey };
}
