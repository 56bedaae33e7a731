// Which addresses a name from the allow list may be dialed at: only public ones. The table
// follows the IANA special-purpose address registries; where a block is special for any
// reason it is refused, because reaching it from a sandbox is never what an allow-list entry
// for a public name meant.
import { cidr, embeddedV4, inCidr, parseIp, type Cidr, type IpAddress } from "./ipAddress.js";

export type AddressClass =
  | "public"
  | "unspecified"
  | "this-network"
  | "loopback"
  | "private"
  | "cgnat"
  | "link-local"
  | "multicast"
  | "broadcast"
  | "documentation"
  | "benchmarking"
  | "unique-local"
  | "site-local"
  | "reserved";

/** How an IPv6 address carries an IPv4 address that is what it really reaches. */
export type Embedding = "ipv4-mapped" | "nat64" | "6to4";

export interface Classification {
  readonly class: AddressClass;
  /** Set when the class is that of an IPv4 address inside an IPv6 one. */
  readonly via?: Embedding;
}

type Row = readonly [Cidr, AddressClass];

// First match wins, so narrower blocks come before the blocks that contain them.
const V4: readonly Row[] = [
  [cidr("0.0.0.0/32"), "unspecified"],
  [cidr("0.0.0.0/8"), "this-network"],
  [cidr("10.0.0.0/8"), "private"],
  [cidr("100.64.0.0/10"), "cgnat"],
  [cidr("127.0.0.0/8"), "loopback"],
  [cidr("169.254.0.0/16"), "link-local"],
  [cidr("172.16.0.0/12"), "private"],
  [cidr("192.0.0.0/24"), "reserved"],
  [cidr("192.0.2.0/24"), "documentation"],
  [cidr("192.88.99.0/24"), "reserved"],
  [cidr("192.168.0.0/16"), "private"],
  [cidr("198.18.0.0/15"), "benchmarking"],
  [cidr("198.51.100.0/24"), "documentation"],
  [cidr("203.0.113.0/24"), "documentation"],
  [cidr("224.0.0.0/4"), "multicast"],
  [cidr("255.255.255.255/32"), "broadcast"],
  [cidr("240.0.0.0/4"), "reserved"],
];

const EMBEDDED: readonly (readonly [Cidr, Embedding, number])[] = [
  [cidr("::ffff:0:0/96"), "ipv4-mapped", 12],
  [cidr("64:ff9b::/96"), "nat64", 12],
  [cidr("2002::/16"), "6to4", 2],
];

const V6: readonly Row[] = [
  [cidr("::/128"), "unspecified"],
  [cidr("::1/128"), "loopback"],
  [cidr("64:ff9b:1::/48"), "private"],
  [cidr("2001:db8::/32"), "documentation"],
  [cidr("2001::/23"), "reserved"],
  [cidr("3fff::/20"), "documentation"],
  [cidr("5f00::/16"), "reserved"],
  [cidr("fc00::/7"), "unique-local"],
  [cidr("fe80::/10"), "link-local"],
  [cidr("fec0::/10"), "site-local"],
  [cidr("ff00::/8"), "multicast"],
];

/** Global unicast: every public IPv6 address is in it; the rest of the space is not assigned. */
const GLOBAL_UNICAST = cidr("2000::/3");

function classifyV4(address: IpAddress): AddressClass {
  return V4.find(([block]) => inCidr(address, block))?.[1] ?? "public";
}

/** Classifies a parsed address. An IPv6 address that embeds an IPv4 one takes its class. */
export function classifyIp(address: IpAddress): Classification {
  if (address.family === 4) return { class: classifyV4(address) };
  for (const [block, via, offset] of EMBEDDED) {
    if (inCidr(address, block)) return { class: classifyV4(embeddedV4(address, offset)), via };
  }
  const row = V6.find(([block]) => inCidr(address, block));
  if (row !== undefined) return { class: row[1] };
  return { class: inCidr(address, GLOBAL_UNICAST) ? "public" : "reserved" };
}

/**
 * Classifies an address given as text; anything that is not a standard IPv4 or IPv6 address
 * (a zone id, a legacy form such as `127.1`) is "reserved", so it is never taken for public.
 */
export function classifyAddress(text: string): Classification {
  const address = parseIp(text);
  return address === undefined ? { class: "reserved" } : classifyIp(address);
}

/** The class in words for proxy.log, such as "loopback (IPv4-mapped)". */
export function describeClass(c: Classification): string {
  return c.via === undefined ? c.class : `${c.class} (${c.via})`;
}
