// How an attach that was stopped to suspend the task ends: on request, or for a usage limit that
// resets before the deadline, the task is suspended (its results are not judged: the run did not
// end, it was paused); for a usage limit that resets at or after the deadline it fails, stopped
// by the usage limit. Pure.
import type { SuspendReason, TerminalInput } from "../store/index.js";
import type { DecidingLimit } from "./usageLimitWait.js";
import type { StopReason } from "./stopTriggers.js";

/** What executeTask gives Attachment.suspend. */
export interface SuspendInput {
  readonly suspend: { reason: SuspendReason; resumeAt?: number; detail?: string };
}

/** The facts a failed task's record keeps, as decideEnd keeps them. */
export interface AttachFacts {
  readonly base: string;
  readonly attempt: number;
  readonly sandbox: string;
}

/** The suspension or the end a stop for suspending means; undefined for any other stop. */
export function suspensionEnd(
  stop: StopReason | undefined,
  limit: DecidingLimit | undefined,
  facts: AttachFacts,
): SuspendInput | TerminalInput | undefined {
  if (stop === "suspend") return { suspend: { reason: "request" } };
  if (stop !== "usage_limit" || limit === undefined) return undefined;
  const reset = new Date(limit.limit.resetAt).toISOString();
  const detail = `the ${limit.limit.api} API's usage limit resets at ${reset} (${limit.limit.source})`;
  if (limit.verdict.kind === "wait") {
    return { suspend: { reason: "usage_limit", resumeAt: limit.verdict.resumeAt, detail } };
  }
  return {
    state: "failed",
    stoppedBy: "usage_limit",
    error: `${detail}, after the task's deadline, so it cannot go on in time`,
    details: {
      base: facts.base,
      attempt: facts.attempt,
      sandbox: facts.sandbox,
      usageLimit: {
        api: limit.limit.api,
        resetAt: limit.limit.resetAt,
        source: limit.limit.source,
      },
    },
  };
}
