// Where the permission prompts of one attach are answered: by the rules and the policy at once,
// or, under `prompt`, by a person through the store (`warden approve`), waiting until an answer
// or the timeout, which denies. Every decision is recorded as an event. Anything that goes wrong
// on the way denies: a prompt is never allowed by accident.
import { AGENT_EVENT_LIMITS } from "../../agents/index.js";
import { durationText } from "../../lang/index.js";
import { CHANNEL_LIMITS, cleanLine, cutText, WardenError } from "../../protocol/index.js";
import type { ApprovalRequest, Attachment } from "../../store/index.js";
import { judgeToolCall, type ApprovalRules, type ApprovePolicy } from "./approvalPolicy.js";
import { HOST_LIMITS } from "../limits.js";
import type { Reporter } from "../reporter.js";
import { toolSubject } from "./toolRules.js";

export interface ApprovalDeskOptions {
  readonly attachment: Attachment;
  readonly policy: ApprovePolicy;
  readonly rules: ApprovalRules;
  /** How long a person has to answer a prompt before it is denied. */
  readonly timeoutMs: number;
  /** Tells the person who started the task that a prompt waits for them. */
  readonly reporter?: Reporter;
}

export interface ApprovalAnswer {
  readonly decision: "allow" | "deny";
  readonly reason: string;
}

/** The prompts of one attach that may wait for a person at once; past it the host denies. */
export const DESK_PENDING_LIMIT = CHANNEL_LIMITS.pendingApprovals;

/** One line of a call's subject for events and notes (sandbox text: cut here, cleaned there). */
function summaryOf(subject: string): string {
  const first = subject.split(/\r?\n/, 1)[0] ?? "";
  const { text, cut } = cutText(first, AGENT_EVENT_LIMITS.summaryBytes - 4);
  return cut || first.length < subject.length ? `${text} …` : text;
}

export class ApprovalDesk {
  readonly #options: ApprovalDeskOptions;
  readonly #closing = new AbortController();
  readonly #waits = new Set<Promise<unknown>>();
  #pending = 0;
  #events = 0;

  constructor(options: ApprovalDeskOptions) {
    this.#options = options;
  }

  /** How many prompts wait for a person now. */
  get pending(): number {
    return this.#pending;
  }

  /**
   * Answers a prompt about a call of `tool` with `input` (its JSON, or a summary). Resolves with
   * the decision; never rejects.
   */
  async ask(tool: string, input: string): Promise<ApprovalAnswer> {
    const subject = toolSubject(tool, input);
    const summary = summaryOf(subject);
    const verdict = judgeToolCall(this.#options.policy, this.#options.rules, { tool, subject });
    if (verdict.kind === "answer") {
      this.#event("approval_answered", {
        tool,
        summary,
        decision: verdict.decision,
        by: verdict.by,
        reason: verdict.reason,
      });
      return { decision: verdict.decision, reason: verdict.reason };
    }
    if (this.#closing.signal.aborted) {
      return this.#denied(tool, summary, "ended", "the task's run is ending");
    }
    if (this.#pending >= DESK_PENDING_LIMIT) {
      return this.#denied(
        tool,
        summary,
        "busy",
        `${DESK_PENDING_LIMIT} prompts already wait for an answer`,
      );
    }
    this.#pending++;
    const wait = this.#askPerson(tool, subject, summary);
    this.#waits.add(wait);
    try {
      return await wait;
    } finally {
      this.#waits.delete(wait);
      this.#pending--;
    }
  }

  /** Denies every prompt still waiting (the run has ended) and waits until each is settled. */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.allSettled([...this.#waits]);
  }

  async #askPerson(tool: string, subject: string, summary: string): Promise<ApprovalAnswer> {
    const { attachment, timeoutMs, reporter } = this.#options;
    let request: ApprovalRequest;
    try {
      request = await attachment.askApproval({ tool, input: subject });
    } catch (error) {
      const why = error instanceof WardenError ? error.message : "the store could not record it";
      return this.#denied(tool, summary, "store", why);
    }
    this.#event("approval_asked", { request: request.n, tool, summary });
    const shown = await attachment.shortId();
    reporter?.note(
      `the agent asks to use ${cleanLine(tool)}: ${cleanLine(summary)}; answer with ` +
        `\`warden approve ${shown} ${request.n} allow\` (or deny) ` +
        `within ${durationText(timeoutMs)}`,
    );
    let settled: ApprovalRequest;
    try {
      settled = await attachment.awaitApproval(request.n, {
        timeoutMs,
        signal: this.#closing.signal,
      });
    } catch {
      return this.#denied(tool, summary, "store", "the store could not say the answer", request.n);
    }
    const decision = settled.decision ?? "deny";
    const reason = answerReason(settled);
    this.#event("approval_answered", {
      request: settled.n,
      tool,
      summary,
      decision,
      by: settled.answeredBy ?? "ended",
      reason,
    });
    reporter?.note(`approval request ${settled.n}: ${decision} (${cleanLine(reason)})`);
    return { decision, reason };
  }

  #denied(
    tool: string,
    summary: string,
    by: string,
    reason: string,
    request?: number,
  ): ApprovalAnswer {
    this.#event("approval_answered", {
      ...(request === undefined ? {} : { request }),
      tool,
      summary,
      decision: "deny",
      by,
      reason,
    });
    return { decision: "deny", reason };
  }

  #event(type: string, data: Record<string, unknown>): void {
    this.#events++;
    if (this.#events > HOST_LIMITS.approvalEvents) return;
    try {
      if (this.#events === HOST_LIMITS.approvalEvents) {
        this.#options.attachment.appendEvent("approval_events_dropped", {
          after: HOST_LIMITS.approvalEvents,
        });
        return;
      }
      this.#options.attachment.appendEvent(type, data);
    } catch {
      // The attachment has let go (the task is ending): the decision still stands.
    }
  }
}

/** What the agent is told with an answer. */
function answerReason(request: ApprovalRequest): string {
  switch (request.answeredBy) {
    case "person":
      return request.reason === undefined
        ? `${request.decision === "allow" ? "allowed" : "denied"} by a person`
        : `${request.decision === "allow" ? "allowed" : "denied"} by a person: ${request.reason}`;
    case "timeout":
      return `denied: ${request.reason ?? "nobody answered in time"}`;
    case "ended":
    case undefined:
      return `denied: ${request.reason ?? "the task's run ended first"}`;
  }
}
