// The settings of the API relay: where it forwards, with which credential, and what the sandbox
// sees instead. Pure functions of the host's environment and the options.
import { randomBytes } from "node:crypto";
import { BadRelaySettingError } from "./errors.js";
import type { RelayAuth } from "./relayHeaders.js";

/** The public API, used when the host has no ANTHROPIC_BASE_URL. */
export const DEFAULT_UPSTREAM = "https://api.anthropic.com";

/** Where the relay sends requests, read from a URL. */
export interface Upstream {
  readonly protocol: "http:" | "https:";
  readonly hostname: string;
  readonly port: number;
  /** The Host header: the name, and the port when it is not the protocol's default. */
  readonly host: string;
  /** The URL's path without its trailing slash; "" for the root. */
  readonly prefix: string;
}

/** Reads the upstream URL; refuses credentials, a query or a fragment in it. */
export function parseUpstream(text: string): Upstream {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BadRelaySettingError("the API upstream is not a URL", {
      hint: "set ANTHROPIC_BASE_URL to a URL such as https://api.anthropic.com",
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new BadRelaySettingError("the API upstream is neither http:// nor https://", {
      hint: "set ANTHROPIC_BASE_URL to an http:// or https:// URL",
    });
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new BadRelaySettingError("the API upstream URL has a user, password, query or fragment", {
      hint: "give the upstream as scheme://host[:port][/path]; the key goes in ANTHROPIC_API_KEY",
    });
  }
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  return {
    protocol: url.protocol,
    hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
    port,
    host: url.host,
    prefix: url.pathname.replace(/\/+$/, ""),
  };
}

/** What the relay needs from the host's environment. */
export interface RelayHostSettings {
  readonly upstream: string;
  readonly auth: RelayAuth;
}

/**
 * Reads the relay's upstream and credential from the host's environment: ANTHROPIC_BASE_URL
 * (else the public API), and ANTHROPIC_API_KEY (sent as x-api-key) or else ANTHROPIC_AUTH_TOKEN
 * (sent as a bearer token). Returns undefined when the host has neither credential.
 */
export function relaySettingsFromEnv(env: NodeJS.ProcessEnv): RelayHostSettings | undefined {
  const upstream = env.ANTHROPIC_BASE_URL?.trim() || DEFAULT_UPSTREAM;
  const key = env.ANTHROPIC_API_KEY?.trim();
  if (key) return { upstream, auth: { kind: "x-api-key", key } };
  const token = env.ANTHROPIC_AUTH_TOKEN?.trim();
  if (token) return { upstream, auth: { kind: "bearer", token } };
  return undefined;
}

/**
 * A new placeholder key for one task. It has the shape of an Anthropic key, so a client that
 * checks the shape takes it, and says what it is to anyone who finds it.
 */
export function makePlaceholderKey(): string {
  return `sk-ant-warden-placeholder-${randomBytes(12).toString("hex")}`;
}

/** Refuses a placeholder that is empty, or that is or holds the real credential. */
export function checkPlaceholder(placeholder: string, auth: RelayAuth): void {
  const secret = auth.kind === "x-api-key" ? auth.key : auth.token;
  if (secret.length === 0) {
    throw new BadRelaySettingError("the API key for the relay is empty", {
      hint: "set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN) on the host",
    });
  }
  if (placeholder.length === 0 || placeholder.includes(secret) || secret.includes(placeholder)) {
    throw new BadRelaySettingError(
      "the sandbox's placeholder key is empty or overlaps the real key",
      {
        hint: "use makePlaceholderKey() for the placeholder",
      },
    );
  }
}
