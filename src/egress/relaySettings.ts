// The settings of the API relay: where it forwards, with which credential, and what the sandbox
// sees instead. Pure functions of the host's environment and the options.
import { randomBytes } from "node:crypto";
import { BadRelaySettingError } from "./errors.js";
import { keyVariablesText, RELAY_APIS, type ApiKind } from "./relayApis.js";
import { authSecret, relayAuth, type RelayAuth } from "./relayHeaders.js";

/** The public Anthropic API, used when the host has no ANTHROPIC_BASE_URL. */
export const DEFAULT_UPSTREAM = RELAY_APIS.anthropic.defaultUpstream;

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

/**
 * Reads the upstream URL; refuses credentials, a query or a fragment in it. `api` only names
 * the variables in the hints.
 */
export function parseUpstream(text: string, api: ApiKind = "anthropic"): Upstream {
  const { baseVariable, defaultUpstream } = RELAY_APIS[api];
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BadRelaySettingError("the API upstream is not a URL", {
      hint: `set ${baseVariable} to a URL such as ${defaultUpstream}`,
    });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new BadRelaySettingError("the API upstream is neither http:// nor https://", {
      hint: `set ${baseVariable} to an http:// or https:// URL`,
    });
  }
  if (url.username !== "" || url.password !== "" || url.search !== "" || url.hash !== "") {
    throw new BadRelaySettingError("the API upstream URL has a user, password, query or fragment", {
      hint: `give ${baseVariable} as scheme://host[:port][/path]; the key goes in ${RELAY_APIS[api].keys[0].variable}`,
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
  readonly api: ApiKind;
  readonly upstream: string;
  readonly auth: RelayAuth;
}

/**
 * Reads the relay's upstream and credential for `api` from the host's environment (see
 * RELAY_APIS): the base URL variable, else the public API; the first credential variable that
 * is set, sent the way that variable's credential is sent. Returns undefined when the host has
 * no credential for the API. A value of only spaces counts as unset.
 */
export function relaySettingsFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  api: ApiKind,
): RelayHostSettings | undefined {
  const { baseVariable, defaultUpstream, keys } = RELAY_APIS[api];
  const upstream = env[baseVariable]?.trim() || defaultUpstream;
  for (const { variable, auth } of keys) {
    const secret = env[variable]?.trim();
    if (secret) return { api, upstream, auth: relayAuth(auth, secret) };
  }
  return undefined;
}

/**
 * A new placeholder key for one task. It has the shape of the API's keys, so a client that
 * checks the shape takes it, and says what it is to anyone who finds it.
 */
export function makePlaceholderKey(api: ApiKind = "anthropic"): string {
  return `${RELAY_APIS[api].placeholderPrefix}${randomBytes(12).toString("hex")}`;
}

/** Refuses a placeholder that is empty, or that is or holds the real credential. */
export function checkPlaceholder(
  placeholder: string,
  auth: RelayAuth,
  api: ApiKind = "anthropic",
): void {
  const secret = authSecret(auth);
  if (secret.length === 0) {
    throw new BadRelaySettingError("the API key for the relay is empty", {
      hint: `set ${keyVariablesText(api)} on the host`,
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
