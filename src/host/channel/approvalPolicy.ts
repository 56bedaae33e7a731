// How the host answers a permission prompt: deny rules first, then allow rules, then the task's
// policy (`always` allows, `never` denies, `prompt` asks a person). Pure.
import type { Settings } from "../../protocol/index.js";
import { ruleMatches, type ToolRule } from "./toolRules.js";

/** `always`, `never` or `prompt`. */
export type ApprovePolicy = NonNullable<Settings["approve"]>;

export interface ApprovalRules {
  readonly allow: readonly ToolRule[];
  readonly deny: readonly ToolRule[];
}

export const NO_RULES: ApprovalRules = { allow: [], deny: [] };

export type PolicyVerdict =
  | {
      kind: "answer";
      decision: "allow" | "deny";
      /** A rule decided, or the policy itself. */
      by: "rule" | "policy";
      reason: string;
    }
  | { kind: "ask" };

/** The verdict on a call of `tool` whose subject (see toolSubject) is `subject`. */
export function judgeToolCall(
  policy: ApprovePolicy,
  rules: ApprovalRules,
  call: { tool: string; subject: string },
): PolicyVerdict {
  const denied = rules.deny.find((r) => ruleMatches(r, call.tool, call.subject, "deny"));
  if (denied !== undefined) {
    return { kind: "answer", decision: "deny", by: "rule", reason: `denied by ${denied.text}` };
  }
  const allowed = rules.allow.find((r) => ruleMatches(r, call.tool, call.subject, "allow"));
  if (allowed !== undefined) {
    return { kind: "answer", decision: "allow", by: "rule", reason: `allowed by ${allowed.text}` };
  }
  switch (policy) {
    case "always":
      return { kind: "answer", decision: "allow", by: "policy", reason: "the task allows tools" };
    case "never":
      return {
        kind: "answer",
        decision: "deny",
        by: "policy",
        reason: "the task allows only the tools its allow rules name",
      };
    case "prompt":
      return { kind: "ask" };
  }
}
