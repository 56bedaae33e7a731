// `warden doctor --check-api`: one cheap authenticated request to an API as the relay would make
// it (the host's upstream and credential), read the way the relay reads a failure: the key
// works, the key is refused, nothing answers there, or something else went wrong.
import { request as httpRequest, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { WardenError } from "../protocol/index.js";
import { EGRESS_LIMITS } from "./limits.js";
import { RELAY_APIS, type ApiKind } from "./relayApis.js";
import { upstreamHeaders } from "./relayHeaders.js";
import { parseUpstream, type RelayHostSettings, type Upstream } from "./relaySettings.js";
import {
  keyHint,
  rejectedBy,
  rejectedWhy,
  unreachableBy,
  unreachableWhy,
  upstreamHint,
  upstreamUrl,
} from "./upstreamFailure.js";

/** ok: the key works; rejected: 401/403; unreachable: nothing listens; failed: anything else. */
export type ApiVerdict = "ok" | "rejected" | "unreachable" | "failed";

export interface ApiCheck {
  readonly api: ApiKind;
  /** The upstream as configured, or as given when it is not a URL warden can use. */
  readonly upstream: string;
  readonly verdict: ApiVerdict;
  /** The HTTP status of the answer, when one came. */
  readonly status?: number;
  /** What happened, in words; never the key. */
  readonly detail: string;
  /** The error code of a failure (API_KEY_REJECTED, API_UNREACHABLE, BAD_RELAY_SETTING...). */
  readonly code?: string;
  readonly hint?: string;
}

/** The one request of a check. */
export interface ApiCheckPlan {
  readonly api: ApiKind;
  readonly upstream: Upstream;
  readonly path: string;
  readonly headers: OutgoingHttpHeaders;
}

/** The request that checks `settings`: the API's model listing below the upstream. Pure. */
export function apiCheckPlan(settings: RelayHostSettings): ApiCheckPlan {
  const upstream = parseUpstream(settings.upstream, settings.api);
  const { check } = RELAY_APIS[settings.api];
  return {
    api: settings.api,
    upstream,
    path: `${upstream.prefix}${check.path}`,
    headers: upstreamHeaders({ ...check.headers }, settings.auth, upstream.host),
  };
}

/** How an answer's status reads. Pure. */
export function statusVerdict(plan: ApiCheckPlan, status: number): ApiCheck {
  const base = { api: plan.api, upstream: upstreamUrl(plan.upstream), status };
  if (status >= 200 && status < 300) {
    return { ...base, verdict: "ok", detail: `the key works (HTTP ${status})` };
  }
  const rejected = rejectedBy(plan.api, plan.upstream, status);
  if (rejected !== undefined) {
    const detail = `the upstream ${rejectedWhy(status) ?? ""}`;
    return { ...base, verdict: "rejected", detail, code: rejected.code, hint: keyHint(plan.api) };
  }
  return {
    ...base,
    verdict: "failed",
    detail: `the API answered HTTP ${status} to ${RELAY_APIS[plan.api].check.path.replace(/\?.*/, "")}`,
    hint: `check that ${RELAY_APIS[plan.api].baseVariable} names the API's base URL`,
  };
}

/** How a connection error reads. Pure. */
export function errorVerdict(plan: ApiCheckPlan, code: string | undefined): ApiCheck {
  const base = { api: plan.api, upstream: upstreamUrl(plan.upstream) };
  const unreachable = unreachableBy(plan.api, plan.upstream, code);
  if (unreachable !== undefined) {
    const detail = `the upstream ${unreachableWhy(code) ?? ""}`;
    const hint = upstreamHint(plan.api);
    return { ...base, verdict: "unreachable", detail, code: unreachable.code, hint };
  }
  return {
    ...base,
    verdict: "failed",
    detail: `the API could not be asked (${code ?? "error"})`,
    hint: `check the network and ${RELAY_APIS[plan.api].baseVariable}`,
  };
}

function failure(error: WardenError): { detail: string; code: string; hint?: string } {
  return { detail: error.message, code: error.code, ...(error.hint && { hint: error.hint }) };
}

/** Makes the request of `plan`; resolves with how it went, never rejects. */
function send(plan: ApiCheckPlan, timeoutMs: number): Promise<ApiCheck> {
  const { upstream } = plan;
  const request = upstream.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    const req = request({
      protocol: upstream.protocol,
      hostname: upstream.hostname,
      port: upstream.port,
      method: "GET",
      path: plan.path,
      headers: plan.headers,
      timeout: timeoutMs,
    });
    req.on("response", (answer) => {
      // Only the status counts; the body (a list of models) is dropped.
      answer.resume();
      req.destroy();
      resolve(statusVerdict(plan, answer.statusCode ?? 0));
    });
    req.on("timeout", () => {
      req.destroy();
      resolve({
        api: plan.api,
        upstream: upstreamUrl(upstream),
        verdict: "failed",
        detail: `the API did not answer within ${timeoutMs / 1000} s`,
        hint: `check the network and ${RELAY_APIS[plan.api].baseVariable}`,
      });
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      resolve(errorVerdict(plan, error.code));
    });
    req.end();
  });
}

/** Checks one API with the host's settings for it. */
export async function checkApi(
  settings: RelayHostSettings,
  timeoutMs: number = EGRESS_LIMITS.apiCheckTimeoutMs,
): Promise<ApiCheck> {
  let plan: ApiCheckPlan;
  try {
    plan = apiCheckPlan(settings);
  } catch (error) {
    if (!(error instanceof WardenError)) throw error;
    return {
      api: settings.api,
      upstream: settings.upstream,
      verdict: "failed",
      ...failure(error),
    };
  }
  try {
    return await send(plan, timeoutMs);
  } catch {
    // Node refuses to send a header it deems invalid; its message is not shown, as it could
    // quote the key.
    return {
      ...errorVerdict(plan, undefined),
      detail: "the key holds characters an HTTP header cannot carry",
    };
  }
}
