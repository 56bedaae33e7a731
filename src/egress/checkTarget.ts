// Whether the proxy may open a tunnel to a target, as a plan: first from the allow list alone
// (before any DNS query, so a name not on the list is never even looked up), then from the
// addresses the host resolved. Pure: the proxy does the lookup and the dialing.
import type { AllowList, AllowRule } from "./allowList.js";
import { normalizeName, parsePort } from "./allowList.js";
import { classifyIp, describeClass } from "./classifyAddress.js";
import { inCidr, parseIp, type IpAddress } from "./ipAddress.js";

/** Where a CONNECT request asks to go: a DNS name or an IP address, and a port. */
export interface Target {
  /** The name in lowercase, or the address as written (without brackets). */
  readonly host: string;
  readonly port: number;
  /** Set when the host is an IP address rather than a name. */
  readonly address?: IpAddress;
}

/** What the proxy does once it knows the addresses. */
export type AddressPlan =
  | { readonly kind: "refuse"; readonly reason: string }
  /** Dial these addresses in order, never the name again. */
  | { readonly kind: "dial"; readonly addresses: readonly string[]; readonly rule: AllowRule };

/** What the proxy does with a target before any lookup. */
export type TargetPlan =
  | AddressPlan
  /** Look the name up on the host, then call planAddresses. */
  | { readonly kind: "resolve"; readonly name: string; readonly rule: AllowRule };

/** The target as `host:port`, IPv6 in brackets: how proxy.log and messages show it. */
export function formatTarget(target: Target): string {
  return target.address?.family === 6
    ? `[${target.host}]:${target.port}`
    : `${target.host}:${target.port}`;
}

/**
 * Reads the authority of a CONNECT request: `name:port`, `a.b.c.d:port` or `[v6]:port`. The port
 * is required, as RFC 9110 says for CONNECT.
 */
export function parseTarget(authority: string): Target | undefined {
  let hostText: string;
  let portText: string;
  if (authority.startsWith("[")) {
    const match = /^\[([^\]]+)\]:([0-9]+)$/.exec(authority);
    if (match === null) return undefined;
    [, hostText = "", portText = ""] = match;
    const address = parseIp(hostText);
    if (address?.family !== 6) return undefined;
    const port = parsePort(portText);
    return port === undefined ? undefined : { host: address.text, port, address };
  }
  const colon = authority.lastIndexOf(":");
  if (colon < 0) return undefined;
  hostText = authority.slice(0, colon);
  portText = authority.slice(colon + 1);
  const port = parsePort(portText);
  if (port === undefined) return undefined;
  const address = parseIp(hostText);
  if (address?.family === 4) return { host: address.text, port, address };
  if (address !== undefined) return undefined;
  const name = normalizeName(hostText);
  return name === undefined ? undefined : { host: name, port };
}

function nameRule(list: AllowList, name: string, port: number): AllowRule | undefined {
  return list.rules.find(
    (rule) =>
      rule.port === port &&
      ((rule.kind === "name" && rule.name === name) ||
        (rule.kind === "subdomains" && name.endsWith(`.${rule.domain}`))),
  );
}

function addressRule(list: AllowList, address: IpAddress, port: number): AllowRule | undefined {
  return list.rules.find(
    (rule) => rule.kind === "addresses" && rule.port === port && inCidr(address, rule.cidr),
  );
}

const NOT_LISTED = "not on the allow list";

/** The plan before any lookup: refuse, resolve the name, or dial the address written out. */
export function planTarget(list: AllowList, target: Target): TargetPlan {
  if (target.address !== undefined) {
    const rule = addressRule(list, target.address, target.port);
    return rule === undefined
      ? { kind: "refuse", reason: NOT_LISTED }
      : { kind: "dial", addresses: [target.address.text], rule };
  }
  const rule = nameRule(list, target.host, target.port);
  return rule === undefined
    ? { kind: "refuse", reason: NOT_LISTED }
    : { kind: "resolve", name: target.host, rule };
}

/**
 * The plan once the host has resolved an allowed name. Every address must be public or written
 * out in the allow list; one that is not refuses the whole name, because a name that can
 * resolve to a private address is how DNS rebinding reaches the host's own network.
 */
export function planAddresses(
  list: AllowList,
  target: Target,
  rule: AllowRule,
  addresses: readonly string[],
): AddressPlan {
  const unique = [...new Set(addresses)];
  if (unique.length === 0) return { kind: "refuse", reason: "the name has no address" };
  for (const text of unique) {
    const address = parseIp(text);
    if (address === undefined) {
      return { kind: "refuse", reason: `the name resolves to ${text}, which is not an IP address` };
    }
    if (addressRule(list, address, target.port) !== undefined) continue;
    const c = classifyIp(address);
    if (c.class !== "public") {
      return {
        kind: "refuse",
        reason:
          `the name resolves to ${text}, a ${describeClass(c)} address; a name is dialed only ` +
          "at public addresses (allow the address itself to reach it)",
      };
    }
  }
  return { kind: "dial", addresses: unique, rule };
}
