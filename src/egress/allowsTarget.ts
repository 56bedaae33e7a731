// Whether an allow list lets the agent reach a host and port at all, asked before a task exists
// (an MCP server's URL): the same first step the proxy takes for a CONNECT, before any lookup.
import type { AllowList } from "./allowList.js";
import { parseTarget, planTarget } from "./checkTarget.js";

/**
 * True when the list has a rule for `host:port`. A name that resolves to a private address is
 * still refused by the proxy when the agent connects; this only says the list names it. Pure.
 */
export function allowsTarget(list: AllowList, host: string, port: number): boolean {
  const authority = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const target = parseTarget(authority);
  return target !== undefined && planTarget(list, target).kind !== "refuse";
}
