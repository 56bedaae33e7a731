// Which request headers the API relay passes on, and which it drops. Pure, so the list that
// keeps credentials out of the upstream request is tested on its own.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";

/** How the relay presents the real credential to the upstream. */
export type RelayAuth =
  /** `x-api-key: KEY`, as the public Anthropic API takes it. */
  | { readonly kind: "x-api-key"; readonly key: string }
  /** `authorization: Bearer TOKEN`: OpenAI's keys, and gateways set up with ANTHROPIC_AUTH_TOKEN. */
  | { readonly kind: "bearer"; readonly token: string }
  /** `x-goog-api-key: KEY`, as the Gemini API takes it. */
  | { readonly kind: "x-goog-api-key"; readonly key: string };

/** The credential itself, whichever way it is sent. */
export function authSecret(auth: RelayAuth): string {
  switch (auth.kind) {
    case "x-api-key":
    case "x-goog-api-key":
      return auth.key;
    case "bearer":
      return auth.token;
  }
}

/** The credential as it is sent, from how it is sent and the secret. */
export function relayAuth(kind: RelayAuth["kind"], secret: string): RelayAuth {
  switch (kind) {
    case "x-api-key":
    case "x-goog-api-key":
      return { kind, key: secret };
    case "bearer":
      return { kind, token: secret };
  }
}

/**
 * Headers that carry a credential by name. Any other header whose name matches
 * CREDENTIAL_PATTERN is dropped too, so a credential under a name not listed here (a gateway's
 * own `x-gateway-token`, say) does not reach the upstream either.
 */
export const CREDENTIAL_HEADERS: readonly string[] = [
  "authorization",
  "proxy-authorization",
  "x-api-key",
  "api-key",
  "x-goog-api-key",
  "cookie",
  "cookie2",
  "x-auth-token",
  "x-access-token",
  "x-amz-security-token",
];

/** Any header name with one of these in it is taken for a credential and dropped. */
export const CREDENTIAL_PATTERN = /auth|api[-_]?key|token|cookie|secret|passw|credential/;

/**
 * Hop-by-hop headers (RFC 9110 7.6.1) belong to one connection and are never forwarded; `host`
 * and `expect` are set for the upstream connection afresh.
 */
export const HOP_BY_HOP: readonly string[] = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "expect",
];

export function isCredentialHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return CREDENTIAL_HEADERS.includes(lower) || CREDENTIAL_PATTERN.test(lower);
}

/** The header names the Connection header lists: hop-by-hop for this one message. */
function connectionTokens(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  const text = Array.isArray(value) ? value.join(",") : (value ?? "");
  return new Set(text.split(",").map((token) => token.trim().toLowerCase()));
}

function passOn(
  headers: IncomingHttpHeaders,
  drop: (name: string) => boolean,
): OutgoingHttpHeaders {
  const named = connectionTokens(headers);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.includes(name) || named.has(name) || drop(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The headers of the upstream request: the client's, less every credential and hop-by-hop
 * header, with the real credential and the upstream's own Host added. The answer is asked for
 * uncompressed: the relay scrubs the key from the answer's bytes, which it cannot do in a
 * compressed body.
 */
export function upstreamHeaders(
  incoming: IncomingHttpHeaders,
  auth: RelayAuth,
  host: string,
): OutgoingHttpHeaders {
  const out = passOn(incoming, isCredentialHeader);
  out.host = host;
  out["accept-encoding"] = "identity";
  switch (auth.kind) {
    case "x-api-key":
      out["x-api-key"] = auth.key;
      break;
    case "bearer":
      out.authorization = `Bearer ${auth.token}`;
      break;
    case "x-goog-api-key":
      out["x-goog-api-key"] = auth.key;
      break;
  }
  return out;
}

/** The headers of the response to the client: the upstream's, less hop-by-hop ones. */
export function downstreamHeaders(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  return passOn(incoming, () => false);
}

/**
 * Query parameters that carry a credential: Google's APIs take a key as `key=` (and an OAuth
 * token as `access_token=`, RFC 6750), and some gateways take `api_key=`. The relay sends the
 * host's credential in a header; one in the query is the sandbox's own and is dropped, so
 * the upstream never sees a second credential, nor one the host did not give.
 */
export const CREDENTIAL_QUERY_PARAMS: readonly string[] = [
  "key",
  "access_token",
  "api_key",
  "apikey",
];

/** A query parameter's name, percent- and plus-decoded; the raw text when it does not decode. */
function paramName(part: string): string {
  const eq = part.indexOf("=");
  const raw = (eq === -1 ? part : part.slice(0, eq)).replaceAll("+", " ");
  try {
    return decodeURIComponent(raw).toLowerCase();
  } catch {
    return raw.toLowerCase();
  }
}

/** The query without its credential parameters; every other parameter is kept byte for byte. */
export function upstreamQuery(query: string): string {
  return query
    .split("&")
    .filter((part) => part !== "" && !CREDENTIAL_QUERY_PARAMS.includes(paramName(part)))
    .join("&");
}
