// IP addresses and CIDR blocks as bytes, so that classifying and matching them is exact
// arithmetic rather than string comparison.
import { isIP } from "node:net";

/** An IPv4 (4 bytes) or IPv6 (16 bytes) address, with the text it was read from. */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
  readonly text: string;
}

/** A block of addresses: the first `prefix` bits of `base`. */
export interface Cidr {
  readonly base: IpAddress;
  readonly prefix: number;
}

function parseV4(text: string): Uint8Array {
  return Uint8Array.from(text.split(".").map(Number));
}

function groupsOf(part: string): number[] {
  if (part === "") return [];
  const groups: number[] = [];
  for (const piece of part.split(":")) {
    if (piece.includes(".")) {
      const v4 = parseV4(piece);
      groups.push(((v4[0] ?? 0) << 8) | (v4[1] ?? 0), ((v4[2] ?? 0) << 8) | (v4[3] ?? 0));
    } else {
      groups.push(parseInt(piece, 16));
    }
  }
  return groups;
}

function parseV6(text: string): Uint8Array {
  const [head = "", tail] = text.split("::");
  const front = groupsOf(head);
  const back = tail === undefined ? [] : groupsOf(tail);
  const groups = [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/**
 * Reads an IP address in its standard text form. Zone ids (`fe80::1%eth0`) and the legacy
 * IPv4 forms that inet_aton takes (`127.1`, `0x7f.0.0.1`) are not addresses here.
 */
export function parseIp(text: string): IpAddress | undefined {
  if (text.includes("%")) return undefined;
  switch (isIP(text)) {
    case 4:
      return { family: 4, bytes: parseV4(text), text };
    case 6:
      return { family: 6, bytes: parseV6(text), text };
    default:
      return undefined;
  }
}

/** Whether the first `bits` bits of two byte strings of the same length agree. */
function samePrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  const whole = Math.floor(bits / 8);
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const rest = bits % 8;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return ((a[whole] ?? 0) & mask) === ((b[whole] ?? 0) & mask);
}

/** Whether `address` lies in `cidr`; an IPv4 address never lies in an IPv6 block or back. */
export function inCidr(address: IpAddress, cidr: Cidr): boolean {
  return (
    address.family === cidr.base.family && samePrefix(address.bytes, cidr.base.bytes, cidr.prefix)
  );
}

/** Reads `ADDRESS/PREFIX`; the bits after the prefix must be zero, so a typo is not a wider block. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const base = parseIp(text.slice(0, slash));
  const prefixText = text.slice(slash + 1);
  if (base === undefined || !/^(0|[1-9][0-9]{0,2})$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > base.bytes.length * 8) return undefined;
  return hostBitsZero(base.bytes, prefix) ? { base, prefix } : undefined;
}

function hostBitsZero(bytes: Uint8Array, prefix: number): boolean {
  return bytes.every((b, i) => {
    const prefixBitsHere = Math.max(0, Math.min(8, prefix - i * 8));
    return (b & (0xff >> prefixBitsHere)) === 0;
  });
}

/** The shape of a block in this folder's tables: a dotted quad or hex groups, then a prefix. */
const TABLE_BLOCK = /^(?:(?:[0-9]{1,3}\.){3}[0-9]{1,3}|[0-9a-f:]*::?[0-9a-f:]*)\/[0-9]{1,3}$/;

/**
 * A block from trusted text (the tables of this folder); a typo there is a bug, so it throws.
 * It reads the text without node:net's isIP, whose first calls compile a large expression: the
 * tables are built when a verb loads the egress code, and that cost fell on every such start.
 * parseCidr reads the same text to the same block (a test holds them to it).
 */
export function cidr(text: string): Cidr {
  const slash = text.indexOf("/");
  const address = text.slice(0, slash);
  const family = address.includes(":") ? 6 : 4;
  const bytes = family === 4 ? parseV4(address) : parseV6(address);
  const prefix = Number(text.slice(slash + 1));
  if (!TABLE_BLOCK.test(text) || prefix > bytes.length * 8 || !hostBitsZero(bytes, prefix)) {
    throw new Error(`not a CIDR block: ${text}`);
  }
  return { base: { family, bytes, text: address }, prefix };
}

/** The IPv4 address in the last four bytes of an IPv6 address, or at bytes 2..5 for 6to4. */
export function embeddedV4(address: IpAddress, offset: number): IpAddress {
  const bytes = address.bytes.slice(offset, offset + 4);
  return { family: 4, bytes, text: bytes.join(".") };
}
