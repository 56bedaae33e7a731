// How a client reaches the fleet's server: its credentials made into the NATS client's
// authenticator (a password, an nkey seed file or a creds file), and the client's refusals made
// into warden's typed errors. No password appears in any error: the servers are named without
// the credentials a URL may have carried.
import { open } from "node:fs/promises";
import {
  AuthorizationError,
  connect,
  credsAuthenticator,
  nkeyAuthenticator,
  usernamePasswordAuthenticator,
  type Authenticator,
  type NatsConnection,
} from "@nats-io/transport-node";
import { cleanLine } from "../protocol/index.js";
import { FleetAuthError, FleetUnreachableError } from "./errors.js";
import { FLEET_CLIENT_LIMITS } from "./limits.js";

/** Who a client is to the fleet's server: one of the ways nats-server authenticates. */
export type FleetCredentials =
  | { kind: "password"; user: string; password: string }
  | { kind: "nkey"; seedFile: string }
  | { kind: "creds"; credsFile: string };

/** A credentials file's bytes, bounded: it is read whole into memory. */
async function readCredentialFile(path: string, what: string): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new FleetAuthError(
      `cannot read the ${what} ${cleanLine(path)}: ${cleanLine((error as NodeJS.ErrnoException).code ?? String(error))}`,
    );
  }
  try {
    const limit = FLEET_CLIENT_LIMITS.credentialFileBytes;
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > limit) {
      throw new FleetAuthError(
        `the ${what} ${cleanLine(path)} is not a regular file of at most ${limit} bytes`,
      );
    }
    const bytes = Buffer.alloc(stat.size);
    const { bytesRead } = await handle.read(bytes, 0, stat.size, 0);
    return bytes.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The NATS client's authenticator for the credentials; files are read now, once. */
export async function authenticatorFor(credentials: FleetCredentials): Promise<Authenticator> {
  switch (credentials.kind) {
    case "password":
      return usernamePasswordAuthenticator(credentials.user, credentials.password);
    case "nkey": {
      const seed = await readCredentialFile(credentials.seedFile, "nkey seed file");
      // A seed file may end with a newline; the seed is its first word.
      const text = Buffer.from(seed).toString("utf8").trim();
      return nkeyAuthenticator(new TextEncoder().encode(text));
    }
    case "creds":
      return credsAuthenticator(await readCredentialFile(credentials.credsFile, "creds file"));
  }
}

export interface ConnectInput {
  servers: string | string[];
  authenticator?: Authenticator;
  /** The connection's name, as the server's monitoring shows it. */
  name?: string;
}

/** The servers as an error names them: never with the user and password a URL may carry. */
export function serversText(servers: string | string[]): string {
  const list = Array.isArray(servers) ? servers : [servers];
  return list.map((s) => cleanLine(s.replace(/\/\/[^@/]*@/, "//"))).join(", ");
}

/** Connects, or says why not as FLEET_UNREACHABLE or FLEET_AUTH. */
export async function connectFleet(input: ConnectInput): Promise<NatsConnection> {
  try {
    return await connect({
      servers: input.servers,
      timeout: FLEET_CLIENT_LIMITS.connectTimeoutMs,
      ...(input.authenticator === undefined ? {} : { authenticator: input.authenticator }),
      ...(input.name === undefined ? {} : { name: input.name }),
    });
  } catch (error) {
    throw fleetConnectError(error, input.servers);
  }
}

/** What a failed connect means, as warden's error (the client's message never has a secret). */
export function fleetConnectError(error: unknown, servers: string | string[]): Error {
  const where = serversText(servers);
  if (error instanceof AuthorizationError) {
    return new FleetAuthError(`the fleet's server at ${where} refused the credentials`, {
      cause: error,
    });
  }
  const why = error instanceof Error ? cleanLine(error.message) : "it did not answer";
  return new FleetUnreachableError(`cannot reach the fleet's server at ${where}: ${why}`, {
    cause: error,
  });
}
