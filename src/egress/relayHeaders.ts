// Which request headers the API relay passes on, and which it drops. Pure, so the list that
// keeps credentials out of the upstream request is tested on its own.
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";

/** How the relay presents the real credential to the upstream. */
export type RelayAuth =
  /** `x-api-key: KEY`, as the public Anthropic API takes it. */
  | { readonly kind: "x-api-key"; readonly key: string }
  /** `authorization: Bearer TOKEN`, as gateways configured with ANTHROPIC_AUTH_TOKEN take it. */
  | { readonly kind: "bearer"; readonly token: string };

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
 * header, with the real credential and the upstream's own Host added.
 */
export function upstreamHeaders(
  incoming: IncomingHttpHeaders,
  auth: RelayAuth,
  host: string,
): OutgoingHttpHeaders {
  const out = passOn(incoming, isCredentialHeader);
  out.host = host;
  switch (auth.kind) {
    case "x-api-key":
      out["x-api-key"] = auth.key;
      break;
    case "bearer":
      out.authorization = `Bearer ${auth.token}`;
      break;
  }
  return out;
}

/** The headers of the response to the client: the upstream's, less hop-by-hop ones. */
export function downstreamHeaders(incoming: IncomingHttpHeaders): OutgoingHttpHeaders {
  return passOn(incoming, () => false);
}

/**
 * The upstream path of a request: the upstream URL's path prefix (without its trailing slash)
 * and the request's path, or undefined when the request target is not a path (absolute-form
 * or `*`), which the relay refuses.
 */
export function upstreamPath(prefix: string, requestTarget: string): string | undefined {
  if (!requestTarget.startsWith("/")) return undefined;
  return prefix.replace(/\/+$/, "") + requestTarget;
}
