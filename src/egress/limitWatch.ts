// The relay's look at each answer for a usage limit: a 429 with its reset time in the headers is
// reported at once; one without is read (up to EGRESS_LIMITS.limitBodyBytes of its body, beside
// the pipeline that forwards it, never holding it back) for a reset the body names. The agent
// gets the answer as it came either way; the host decides what the limit means for the task.
import type { IncomingMessage } from "node:http";
import { EGRESS_LIMITS } from "./limits.js";
import type { ApiKind } from "./relayApis.js";
import { LIMIT_STATUS, usageLimitInBody, usageLimitOf, type UsageLimit } from "./usageLimit.js";

export function watchLimit(
  api: ApiKind,
  answer: IncomingMessage,
  now: () => number,
  report: (limit: UsageLimit) => void,
): void {
  const status = answer.statusCode ?? 0;
  if (status !== LIMIT_STATUS) return;
  const tell = (limit: UsageLimit | undefined): void => {
    if (limit === undefined) return;
    try {
      report(limit);
    } catch {
      // A listener's trouble never reaches the request.
    }
  };
  const fromHeaders = usageLimitOf(api, status, answer.headers, now());
  if (fromHeaders !== undefined) {
    tell(fromHeaders);
    return;
  }
  const chunks: Buffer[] = [];
  let kept = 0;
  answer.on("data", (chunk: Buffer) => {
    if (kept > EGRESS_LIMITS.limitBodyBytes) return;
    kept += chunk.length;
    if (kept > EGRESS_LIMITS.limitBodyBytes) chunks.length = 0;
    else chunks.push(chunk);
  });
  answer.once("end", () => {
    if (kept > EGRESS_LIMITS.limitBodyBytes) return;
    tell(usageLimitInBody(api, Buffer.concat(chunks).toString("utf8"), now()));
  });
}
