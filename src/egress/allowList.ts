// The allow list: what the sandbox may reach through the proxy, read from --allow entries and
// presets into rules. Reading is pure and refuses anything ambiguous.
import { cleanLine } from "../protocol/index.js";
import { classifyIp } from "./classifyAddress.js";
import { BadAllowEntryError, UnknownPresetError } from "./errors.js";
import { parseCidr, parseIp, type Cidr } from "./ipAddress.js";
import { isPresetName, PRESET_NAMES, PRESETS } from "./presets.js";

/** The port an entry without one means: the agent's traffic is HTTPS. */
export const DEFAULT_PORT = 443;

/** Longest DNS name, without the trailing dot (RFC 1035). */
const MAX_NAME_BYTES = 253;

export type AllowRule =
  /** Exactly this name. */
  | { readonly kind: "name"; readonly name: string; readonly port: number; readonly source: string }
  /** Every name under this domain, but not the domain itself (`*.example.com`). */
  | {
      readonly kind: "subdomains";
      readonly domain: string;
      readonly port: number;
      readonly source: string;
    }
  /** These addresses, even private or loopback ones: an address written out is meant. */
  | {
      readonly kind: "addresses";
      readonly cidr: Cidr;
      readonly port: number;
      readonly source: string;
    };

export interface AllowList {
  readonly rules: readonly AllowRule[];
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A DNS name in lowercase without a trailing dot, or undefined. The last label may not be all
 * digits, nor every label a number, so legacy IPv4 forms that the resolver would take for an
 * address (`127.1`, `2130706433`, `0x7f000001`) are never read as names.
 */
export function normalizeName(text: string): string | undefined {
  const name = text.toLowerCase().replace(/\.$/, "");
  if (name.length === 0 || name.length > MAX_NAME_BYTES) return undefined;
  const labels = name.split(".");
  if (!labels.every((label) => LABEL.test(label))) return undefined;
  if (/^[0-9]+$/.test(labels[labels.length - 1] ?? "")) return undefined;
  if (labels.every((label) => /^0x[0-9a-f]*$/.test(label) || /^[0-9]+$/.test(label)))
    return undefined;
  return name;
}

/** A port number 1..65535 in plain decimal, or undefined. */
export function parsePort(text: string): number | undefined {
  if (!/^[1-9][0-9]{0,4}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

/** Splits `HOST`, `HOST:PORT`, `[V6]`, `[V6]:PORT` and a bare IPv6 address or block. */
function splitHostPort(entry: string): { host: string; port: string | undefined } | undefined {
  if (entry.startsWith("[")) {
    const close = entry.indexOf("]");
    if (close < 0) return undefined;
    const rest = entry.slice(close + 1);
    if (rest !== "" && !rest.startsWith(":")) return undefined;
    return { host: entry.slice(1, close), port: rest === "" ? undefined : rest.slice(1) };
  }
  const colons = entry.split(":").length - 1;
  if (colons > 1) return { host: entry, port: undefined };
  const colon = entry.indexOf(":");
  return colon < 0
    ? { host: entry, port: undefined }
    : { host: entry.slice(0, colon), port: entry.slice(colon + 1) };
}

function addressRule(host: string, port: number, source: string): AllowRule | undefined {
  if (host.includes("/")) {
    const block = parseCidr(host);
    if (block === undefined) {
      throw new BadAllowEntryError(
        `${cleanLine(source)} is not a CIDR block: ADDRESS/PREFIX with every bit after the prefix zero`,
      );
    }
    return { kind: "addresses", cidr: block, port, source };
  }
  const single = parseIp(host);
  if (single === undefined) return undefined;
  const c = classifyIp(single).class;
  if (c === "unspecified" || c === "multicast" || c === "broadcast") {
    throw new BadAllowEntryError(`${cleanLine(source)} is a ${c} address, which cannot be dialed`);
  }
  const prefix = single.family === 4 ? 32 : 128;
  return { kind: "addresses", cidr: { base: single, prefix }, port, source };
}

/** Reads one allow-list entry; `source` names where it came from in messages and proxy.log. */
export function parseAllowEntry(entry: string, source = entry): AllowRule {
  const bad = (why: string): BadAllowEntryError =>
    new BadAllowEntryError(`the allow-list entry ${JSON.stringify(cleanLine(entry))} ${why}`);
  if (entry.length === 0 || entry.length > MAX_NAME_BYTES + 8 || /[^\x21-\x7e]/.test(entry)) {
    throw bad("is empty, too long, or has spaces or characters outside printable ASCII");
  }
  const split = splitHostPort(entry);
  if (split === undefined) throw bad("is not HOST or HOST:PORT");
  const port = split.port === undefined ? DEFAULT_PORT : parsePort(split.port);
  if (port === undefined) throw bad("has a port that is not a number from 1 to 65535");
  const address = addressRule(split.host, port, source);
  if (address !== undefined) return address;
  if (split.host.startsWith("*.")) {
    const domain = normalizeName(split.host.slice(2));
    if (domain === undefined) throw bad("is not *. followed by a DNS name");
    if (!domain.includes(".")) throw bad("would allow every name under a top-level domain");
    return { kind: "subdomains", domain, port, source };
  }
  const name = normalizeName(split.host);
  if (name === undefined) {
    throw bad(
      "is neither a DNS name (ASCII; write an international name as xn--) nor an IP address",
    );
  }
  return { kind: "name", name, port, source };
}

/** Reads the --allow entries and the presets into one list. */
export function parseAllowList(
  allow: readonly string[],
  presets: readonly string[] = [],
): AllowList {
  const rules: AllowRule[] = allow.map((entry) => parseAllowEntry(entry));
  for (const preset of presets) {
    if (!isPresetName(preset)) {
      throw new UnknownPresetError(
        `there is no preset named ${JSON.stringify(cleanLine(preset))}`,
        {
          hint: `the presets are: ${PRESET_NAMES.join(", ")}`,
        },
      );
    }
    for (const entry of PRESETS[preset]) rules.push(parseAllowEntry(entry, `preset ${preset}`));
  }
  return { rules };
}
