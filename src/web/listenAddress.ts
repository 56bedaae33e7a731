// The address `warden serve` listens on, read from --listen: loopback unless the user says
// otherwise with --public, since the dashboard speaks plain HTTP and its token would cross the
// network in the clear.
import { isIP } from "node:net";
import { BadListenError, NotLoopbackError } from "./errors.js";

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
  readonly loopback: boolean;
}

/** The default: loopback, on a port of its own. */
export const DEFAULT_LISTEN = "127.0.0.1:7420";

function isLoopback(host: string): boolean {
  return host === "::1" || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Reads ADDRESS:PORT (an IPv6 address in brackets); refuses a public one without `allowPublic`. */
export function parseListen(text: string, allowPublic: boolean): ListenAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (host === undefined || isIP(host) === 0 || !Number.isInteger(port) || port > 65535) {
    throw new BadListenError(`--listen ${JSON.stringify(text)} is not ADDRESS:PORT`);
  }
  const loopback = isLoopback(host);
  if (!loopback && !allowPublic) {
    throw new NotLoopbackError(`--listen ${text} is reachable from other machines`);
  }
  return { host, port, loopback };
}
