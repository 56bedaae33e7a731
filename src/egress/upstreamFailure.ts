// Which failures of an API upstream no retry can mend: the upstream refused the credential
// (HTTP 401 or 403), or nothing answers at its address (the connection was refused, or its
// name does not resolve). An agent retries both for minutes; the relay reports the first one so
// the host can end the task at once, and `warden doctor --check-api` reads its answer the same
// way. Pure: each failure is an error naming the upstream as the host configured it, never the
// relay's address inside the sandbox.
import { keyVariablesText, RELAY_APIS, type ApiKind } from "./relayApis.js";
import type { Upstream } from "./relaySettings.js";
import { ApiKeyRejectedError, ApiUnreachableError, type UpstreamFailure } from "./errors.js";

/** The statuses with which an API refuses a credential: missing or wrong (401), not allowed (403). */
export const REJECTED_STATUSES: ReadonlySet<number> = new Set([401, 403]);

/**
 * Connection errors that say nothing listens there: a refused connection (a stopped server, a
 * wrong port) and a name that does not exist. A timeout or a reset may pass, so they are not here.
 */
export const UNREACHABLE_CODES: Readonly<Record<string, string>> = {
  ECONNREFUSED: "the connection was refused",
  ENOTFOUND: "its host name does not resolve",
};

/** The upstream as a person configured it: scheme, host, port when not the default, path. */
export function upstreamUrl(upstream: Upstream): string {
  return `${upstream.protocol}//${upstream.host}${upstream.prefix}`;
}

const CHECK_HINT = "`warden doctor --check-api` tries the key and the upstream without a task";

/** What the upstream did, in words, when `status` refuses the key; undefined otherwise. */
export function rejectedWhy(status: number): string | undefined {
  if (!REJECTED_STATUSES.has(status)) return undefined;
  return `refused the API key${status === 403 ? "'s access" : ""} (HTTP ${status})`;
}

/** What went wrong, in words, when `code` says nothing listens; undefined otherwise. */
export function unreachableWhy(code: string | undefined): string | undefined {
  const why = code === undefined ? undefined : UNREACHABLE_CODES[code];
  return why === undefined ? undefined : `could not be reached: ${why}`;
}

/** What to check when the key is refused. */
export function keyHint(api: ApiKind): string {
  return `check ${keyVariablesText(api)} on the host`;
}

/** What to check when nothing answers at the upstream. */
export function upstreamHint(api: ApiKind): string {
  return `start the server, or set ${RELAY_APIS[api].baseVariable} on the host to one that runs`;
}

/** The failure an answer's status stands for, or undefined when a retry may still succeed. */
export function rejectedBy(
  api: ApiKind,
  upstream: Upstream,
  status: number,
): UpstreamFailure | undefined {
  const why = rejectedWhy(status);
  if (why === undefined) return undefined;
  return new ApiKeyRejectedError(`the ${api} API at ${upstreamUrl(upstream)} ${why}`, {
    hint: `${keyHint(api)}; ${CHECK_HINT}`,
  });
}

/** The failure a connection error stands for, or undefined when a retry may still succeed. */
export function unreachableBy(
  api: ApiKind,
  upstream: Upstream,
  code: string | undefined,
): UpstreamFailure | undefined {
  const why = unreachableWhy(code);
  if (why === undefined) return undefined;
  return new ApiUnreachableError(`the ${api} API at ${upstreamUrl(upstream)} ${why}`, {
    hint: `${upstreamHint(api)}; ${CHECK_HINT}`,
  });
}
