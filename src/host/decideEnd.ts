// How a task ended, decided from what the host knows: why it stopped the sandbox, if it did;
// what came back (the result the guest claims, and the bundle the host checked itself); how the
// sandbox exited. Pure: every fact is an argument, and the guest's claims count only where the
// host could check them. How the agent itself ended (a bound, an API error) is read by the
// agent's own adapter from the agent's last line, the one claim only the agent can make.
import { adapterFor, type AgentOutcome } from "../agents/index.js";
import { definedFields } from "../lang/index.js";
import { cleanLine, cutText, type AgentName, type Result } from "../protocol/index.js";
import type { StoppedBy, TerminalInput } from "../store/index.js";
import type { SandboxBound } from "../sandbox/index.js";
import type { ApiFailureFacts } from "./apiFailure.js";
import type { BundleFacts } from "./verifyChanges.js";
import type { BudgetRefusal, SpendTotals } from "./spending/index.js";
import type { StopReason } from "./stopTriggers.js";
import type { SetupFailure } from "./setupPhase.js";
import { workspaceClaimProblem, workspaceDetails, type WorkspaceFacts } from "./workspaceFacts.js";

export type ResultFacts =
  | {
      kind: "received";
      result: Result;
      bundle: BundleFacts;
      /** The bound workspaces (--workspace), each with its own bundle the host checked. */
      workspaces?: readonly WorkspaceFacts[];
    }
  | { kind: "refused"; error: string };

export interface EndFacts {
  /** The commit the host sent. */
  base: string;
  /** Why the host stopped the sandbox (not `interrupt`: that ends in no record at all). */
  stop: Exclude<StopReason, "interrupt"> | undefined;
  results: ResultFacts;
  exit: {
    code: number | null;
    signal: string | null;
    outOfMemory: boolean;
    /** The first bound the host saw the sandbox reach, whether or not it stopped it for that. */
    bound: SandboxBound | null;
  };
  /** The agent's timeout, for the message when it ran out. */
  timeoutSeconds: number | undefined;
  /** Which attach of the task this was. */
  attempt: number;
  sandbox: string;
  /** The agent the task ran: its adapter reads the agent's last line. */
  agent: AgentName;
  /** The first failure of the model API that no retry mends, when the relay saw one. */
  apiFailure?: ApiFailureFacts;
  /** The spending cap the relay's gate refused a request for, when it did. */
  budget?: BudgetRefusal;
  /** What the relay metered for the task over all its attaches, when it metered any. */
  spend?: SpendTotals;
  /** How the task's setup failed, as the host recorded it (setupPhase.ts), when it did. */
  setup?: SetupFailure;
}

/** The longest error text kept from the sandbox, after cleaning. */
const SANDBOX_ERROR_BYTES = 2048;

function sandboxText(text: string): string {
  const { text: cut, cut: wasCut } = cutText(cleanLine(text), SANDBOX_ERROR_BYTES);
  return wasCut ? `${cut} [cut]` : cut;
}

function short(oid: string): string {
  return oid.slice(0, 12);
}

/** How the agent says its run ended, when it ran: its adapter's reading of its last line. */
function agentOutcome(facts: EndFacts): AgentOutcome | undefined {
  if (facts.results.kind !== "received") return undefined;
  const { result } = facts.results;
  if (result.agentExitCode === undefined) return undefined;
  return adapterFor(facts.agent).outcome({
    lastLine: result.agentResult,
    exitCode: result.agentExitCode,
  });
}

/** The agent's own account, kept apart from the host's facts under `agent`. */
function agentAccount(outcome: AgentOutcome): Record<string, unknown> {
  const { ok, stoppedBy, turns, costUSD } = outcome.result;
  const account: Record<string, unknown> = definedFields({ ok, stoppedBy, turns, costUSD });
  // The runner marks a result it synthesized for an agent that wrote none (stopped mid-turn).
  // `made_up_by` in result.json and `madeUp` in the terminal record are on disk: their names stay.
  if (outcome.synthesized || outcome.agentResult?.made_up_by === "warden") account.madeUp = true;
  return account;
}

/**
 * What the host checked and may show: the facts it verified, never a bare claim; and, under
 * `agent`, the agent's own account of its run (turns, cost), which only the agent can give.
 */
function detailsOf(facts: EndFacts): Record<string, unknown> {
  const details: Record<string, unknown> = {
    base: facts.base,
    attempt: facts.attempt,
    sandbox: facts.sandbox,
  };
  // The host's own measure of the cost, beside the agent's claim under `agent`.
  if (facts.spend !== undefined) details.spend = { ...facts.spend };
  if (facts.results.kind !== "received") return details;
  const { result, bundle } = facts.results;
  if (bundle.kind === "verified") {
    details.head = bundle.head;
    details.changes = true;
    details.commits = bundle.commits;
  } else if (bundle.kind === "none" && (result.head === undefined || result.head === facts.base)) {
    details.head = facts.base;
    details.changes = false;
  }
  if (facts.results.workspaces !== undefined && facts.results.workspaces.length > 0) {
    details.workspaces = workspaceDetails(facts.results.workspaces);
  }
  if (result.agentExitCode !== undefined) details.agentExitCode = result.agentExitCode;
  details.leftovers = result.leftovers;
  if (result.truncated.length > 0) details.truncated = result.truncated;
  if (result.warnings.length > 0) details.warnings = result.warnings.length;
  const outcome = agentOutcome(facts);
  if (outcome !== undefined) details.agent = agentAccount(outcome);
  return details;
}

/** Why the agent's run did not succeed, in its own words when it gave any. */
function agentError(outcome: AgentOutcome, exitCode: number): string {
  const { result } = outcome;
  // Without a line of the agent's own, the adapter's message only repeats the exit code.
  const said =
    outcome.agentResult !== undefined && result.message !== undefined
      ? `: ${sandboxText(result.message)}`
      : "";
  switch (result.stoppedBy) {
    case "turns":
      return `the agent reached its turn limit${said}`;
    case "budget":
      return `the agent reached its budget${said}`;
    case undefined:
      return exitCode === 0
        ? `the agent failed${said}`
        : `the agent exited with code ${exitCode}${said}`;
  }
}

/**
 * The agent's own summary when it left one: the answer its adapter read from its stream, else a
 * `result` text in its last JSON line (a command's, or an older runner's).
 */
function agentSummary(result: Result): string | undefined {
  const text = result.answer ?? result.agentResult?.result;
  return typeof text === "string" && text.trim() !== "" ? sandboxText(text) : undefined;
}

function failed(
  facts: EndFacts,
  error: string,
  stoppedBy?: StoppedBy,
  extra: Record<string, unknown> = {},
): TerminalInput {
  return definedFields({
    state: "failed",
    error,
    details: { ...detailsOf(facts), ...extra },
    stoppedBy,
  });
}

/** Why the claims of the result do not hold against the host's own facts, if they do not. */
function claimProblem(base: string, result: Result, bundle: BundleFacts): string | undefined {
  if (result.base !== undefined && result.base !== base) {
    return `the sandbox says it started from ${result.base}, but warden sent ${base}`;
  }
  switch (bundle.kind) {
    case "refused":
      return bundle.error;
    case "verified":
      if (result.head !== bundle.head) {
        return `result.json names the head ${result.head ?? "(none)"}, but changes.bundle holds ${bundle.head}`;
      }
      return undefined;
    case "none":
      if (result.head !== undefined && result.head !== base) {
        return `result.json names the head ${result.head}, but the sandbox sent no changes.bundle`;
      }
      return undefined;
  }
}

const MEMORY_ERROR =
  "the sandbox ran out of memory; its /tmp and home are in memory too and count against --memory";

/** Why a bound ended the task, with the flag that sets it. */
function boundError(bound: SandboxBound): string {
  switch (bound.bound) {
    case "memory":
      return `the sandbox reached ${bound.detail} and was stopped; its /tmp and home are in memory too and count against it (--memory)`;
    case "processes":
      return `the sandbox reached ${bound.detail} and was stopped; the kernel counts threads as processes (--max-processes)`;
    case "disk":
      return `the sandbox reached ${bound.detail} and was stopped (--disk)`;
  }
}

/** Decides the terminal record of one attach. */
export function decideEnd(facts: EndFacts): TerminalInput {
  switch (facts.stop) {
    case "cancel":
      return { state: "cancelled", summary: "cancelled on request", details: detailsOf(facts) };
    case "deadline":
      return failed(facts, "the task reached its deadline and was stopped", "deadline");
    case "host_timeout":
      return failed(
        facts,
        "the task ran past the host's time limit (its timeout plus the git steps) and was stopped",
        "host_timeout",
      );
    case "api":
      if (facts.apiFailure !== undefined) {
        // The host's own account: the upstream as configured, what to check, and the code.
        const { code, message, hint } = facts.apiFailure;
        return failed(facts, message, undefined, definedFields({ code, hint }));
      }
      break;
    case "budget":
      if (facts.budget !== undefined) {
        const { cap, capUSD, spentUSD } = facts.budget;
        return failed(facts, `${facts.budget.message}; the task was stopped`, "budget", {
          budget: { cap, capUSD, spentUSD },
        });
      }
      break;
    // A stop to suspend never ends the task here: suspensionEnd.ts decides it first.
    case "suspend":
    case "usage_limit":
    case "bound":
    case "refused":
    case undefined:
      break;
  }
  // A bound the host saw explains whatever came back after it, an archive cut short included.
  const bound = facts.exit.bound;
  if (bound !== null) return failed(facts, boundError(bound), bound.bound);
  if (facts.exit.outOfMemory) return failed(facts, MEMORY_ERROR, "memory");
  // A failed setup explains why the agent never ran, whatever the runner claims after it.
  if (facts.setup !== undefined) {
    return failed(facts, `setup failed: ${sandboxText(facts.setup.error)}`, "setup", {
      code: facts.setup.code,
    });
  }
  const results = facts.results;
  if (results.kind === "refused") return failed(facts, results.error);
  const { result, bundle } = results;
  const problem =
    claimProblem(facts.base, result, bundle) ??
    workspaceClaimProblem(result, results.workspaces ?? []);
  if (problem !== undefined) return failed(facts, problem);
  if (result.error !== undefined)
    return failed(facts, `the sandbox reports: ${sandboxText(result.error)}`);
  if (result.timedOut) {
    const limit = facts.timeoutSeconds === undefined ? "" : ` of ${facts.timeoutSeconds} s`;
    return failed(facts, `the agent ran past its timeout${limit} and was stopped`, "host_timeout");
  }
  if (result.agentExitCode === undefined) return failed(facts, "the agent never ran");
  const outcome = agentOutcome(facts);
  if (outcome !== undefined && !outcome.result.ok) {
    return failed(facts, agentError(outcome, result.agentExitCode), outcome.result.stoppedBy);
  }
  if (result.agentExitCode !== 0) {
    return failed(facts, `the agent exited with code ${result.agentExitCode}`);
  }
  if (facts.exit.code !== 0) {
    const how = facts.exit.signal ?? `code ${String(facts.exit.code)}`;
    return failed(facts, `the runner exited with ${how}`);
  }
  const summary =
    agentSummary(result) ??
    (bundle.kind === "verified"
      ? `${bundle.commits} commit${bundle.commits === 1 ? "" : "s"} on top of ${short(facts.base)}, head ${short(bundle.head)}`
      : "no changes");
  const changed = (results.workspaces ?? []).filter((w) => w.bundle.kind === "verified");
  const also =
    changed.length === 0
      ? ""
      : `; changes in workspace${changed.length === 1 ? "" : "s"} ${changed.map((w) => w.workspace.name).join(", ")}`;
  return { state: "succeeded", summary: summary + also, details: detailsOf(facts) };
}
