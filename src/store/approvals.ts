// Permission prompts put to a person: approvals.json, replaced atomically by whoever holds
// approvals.lock. The executor opens a request (pending) when its agent asks about a tool call
// and the task's policy says a person decides; anyone allowed answers it (`warden approve`); the
// executor answers it itself with a denial when nobody did in time, or when the task ends.
// A request is answered once: the first answer under the lock wins, every later one is refused.
import { existsSync } from "node:fs";
import { cutText } from "../protocol/index.js";
import { withBriefLock } from "./attachLock.js";
import { readJsonFile, writeFileAtomic, type StoreHooks } from "./atomicFile.js";
import { ChangeBell } from "./changeBell.js";
import {
  ApprovalAnsweredError,
  ApprovalNotFoundError,
  ApprovalsBusyError,
  ApprovalsFullError,
  damaged,
  hasFinished,
  noApprovalRequest,
  StoreCorruptError,
  TaskFinishedError,
} from "./errors.js";
import { STORE_LIMITS } from "./limits.js";
import { readTerminal } from "./readTask.js";
import {
  arrayOf,
  int,
  nullable,
  oneOf,
  optional,
  strictObject,
  text,
  type ShapeOf,
} from "./recordShape.js";
import type { TaskPaths } from "./taskDir.js";
import type { TerminalRecord } from "./terminalRecord.js";

export const APPROVAL_DECISIONS = ["allow", "deny"] as const;
export type ApprovalDecision = (typeof APPROVAL_DECISIONS)[number];

/** Who settled a request: a person (`warden approve`), the clock, or the end of the run. */
export const APPROVAL_ANSWERERS = ["person", "timeout", "ended"] as const;
export type ApprovalAnswerer = (typeof APPROVAL_ANSWERERS)[number];

export const isApprovalRequest = strictObject({
  /** 1, 2, 3... in the order the agent asked, over the task's whole life. */
  n: int(1, STORE_LIMITS.approvalRequests),
  /** The tool the agent wants to call, as it named it (sandbox text: clean before showing). */
  tool: text,
  /** One line of what the call would do (sandbox text). */
  input: text,
  askedAt: int(),
  /** Which attach of the task asked. */
  attempt: int(0),
  state: oneOf(["pending", "answered"]),
  decision: optional(oneOf(APPROVAL_DECISIONS)),
  answeredBy: optional(oneOf(APPROVAL_ANSWERERS)),
  /** The task a person answered from (null: from outside any task). */
  by: optional(nullable(text)),
  reason: optional(text),
  answeredAt: optional(int()),
});

export type ApprovalRequest = ShapeOf<typeof isApprovalRequest>;

const isApprovalsFile = strictObject({
  requests: arrayOf(isApprovalRequest, STORE_LIMITS.approvalRequests),
});

/** What an answer says. */
export interface ApprovalAnswer {
  decision: ApprovalDecision;
  answeredBy: ApprovalAnswerer;
  by?: string | null;
  reason?: string;
}

/** Reads approvals.json without a lock: it is only ever replaced whole. */
export async function readApprovals(paths: TaskPaths): Promise<ApprovalRequest[]> {
  const value = await readJsonFile(paths.approvals);
  if (value === undefined) return [];
  if (!isApprovalsFile(value)) {
    throw new StoreCorruptError(damaged(paths.approvals, "not a list of approvals"));
  }
  return value.requests;
}

async function writeApprovals(
  paths: TaskPaths,
  requests: ApprovalRequest[],
  hooks: StoreHooks,
): Promise<void> {
  await writeFileAtomic(paths.approvals, JSON.stringify({ requests }) + "\n", hooks);
}

/** Text from the sandbox or a person, made storable: well-formed, and cut to `max` bytes. */
function storable(text: string, max: number): string {
  return cutText(text.replace(/\p{Cs}/gu, "?"), max).text;
}

/** The next request of a task that asked `requests` so far; refuses a 9th pending and a 257th. */
export function planApproval(
  id: string,
  requests: readonly ApprovalRequest[],
  call: { tool: string; input: string; attempt: number },
  at: number,
): ApprovalRequest {
  if (requests.length >= STORE_LIMITS.approvalRequests) {
    throw new ApprovalsFullError(
      `task ${id} has asked its ${STORE_LIMITS.approvalRequests} approval requests`,
    );
  }
  const pending = requests.filter((r) => r.state === "pending").length;
  if (pending >= STORE_LIMITS.approvalsPending) {
    throw new ApprovalsBusyError(
      `task ${id} already has ${STORE_LIMITS.approvalsPending} approval requests waiting`,
    );
  }
  return {
    n: requests.length + 1,
    tool: storable(call.tool, STORE_LIMITS.approvalToolBytes),
    input: storable(call.input, STORE_LIMITS.approvalInputBytes),
    askedAt: at,
    attempt: call.attempt,
    state: "pending",
  };
}

/** Opens a pending request for a tool call. Refuses a 9th pending one and a 257th in all. */
export async function openApproval(
  paths: TaskPaths,
  call: { tool: string; input: string; attempt: number },
  at: number,
  hooks: StoreHooks,
): Promise<ApprovalRequest> {
  return withBriefLock(paths.approvalsLock, async () => {
    const requests = await readApprovals(paths);
    const request = planApproval(paths.id, requests, call, at);
    await writeApprovals(paths, [...requests, request], hooks);
    return request;
  });
}

/**
 * Answers a pending request. Refuses an unknown number, a request already answered, and (for a
 * person's answer) a task that has finished.
 */
export async function answerApproval(
  paths: TaskPaths,
  n: number,
  answer: ApprovalAnswer,
  at: number,
  hooks: StoreHooks,
): Promise<ApprovalRequest> {
  return withBriefLock(paths.approvalsLock, async () => {
    const requests = await readApprovals(paths);
    const terminal = answer.answeredBy === "person" ? await readTerminal(paths) : undefined;
    const request = applyAnswer(paths.id, requests, n, answer, at, terminal);
    await writeApprovals(paths, requests, hooks);
    return request;
  });
}

/**
 * Settles request `n` among `requests` (in place) with `answer`. Refuses an unknown number, a
 * request already answered, and a person's answer once the task has its terminal record.
 */
export function applyAnswer(
  id: string,
  requests: ApprovalRequest[],
  n: number,
  answer: ApprovalAnswer,
  at: number,
  terminal: TerminalRecord | undefined,
): ApprovalRequest {
  const request = requests.find((r) => r.n === n);
  if (request === undefined) throw new ApprovalNotFoundError(noApprovalRequest(id, n));
  if (request.state !== "pending") {
    throw new ApprovalAnsweredError(
      `approval request ${request.n} of task ${id} was already answered: ${howAnswered(request)}`,
    );
  }
  if (answer.answeredBy === "person" && terminal !== undefined) {
    throw new TaskFinishedError(hasFinished(id, terminal, "its prompts take no more answers"), {
      terminal,
    });
  }
  settle(request, answer, at);
  return request;
}

/** How a request that is no longer pending was answered, in words. */
function howAnswered(request: ApprovalRequest): string {
  if (request.answeredBy === "person") return `${request.decision ?? "answered"} by a person`;
  return request.answeredBy === "timeout"
    ? "denied when nobody answered in time"
    : "denied when the run that asked ended";
}

function settle(request: ApprovalRequest, answer: ApprovalAnswer, at: number): void {
  request.state = "answered";
  request.decision = answer.decision;
  request.answeredBy = answer.answeredBy;
  if (answer.by !== undefined) request.by = answer.by;
  if (answer.reason !== undefined && answer.reason !== "") {
    request.reason = storable(answer.reason, STORE_LIMITS.approvalReasonBytes);
  }
  request.answeredAt = at;
}

/** Denies every pending request (the run they were asked in has ended). Returns how many. */
export async function expireApprovals(
  paths: TaskPaths,
  reason: string,
  at: number,
  hooks: StoreHooks,
): Promise<number> {
  if (!existsSync(paths.approvals)) return 0;
  return withBriefLock(paths.approvalsLock, async () => {
    const requests = await readApprovals(paths);
    const pending = requests.filter((r) => r.state === "pending");
    if (pending.length === 0) return 0;
    for (const r of pending) settle(r, { decision: "deny", answeredBy: "ended", reason }, at);
    await writeApprovals(paths, requests, hooks);
    return pending.length;
  });
}

export interface AwaitApprovalOptions {
  /** Deny the request as `timeout` once this long has passed without an answer. */
  timeoutMs: number;
  /** Aborting denies the request as `ended`: the run that asked is over. */
  signal?: AbortSignal;
}

/**
 * Waits for request `n` to be answered: on fs.watch of the task directory with a poll as the
 * safety net. Denies it itself at the timeout or on abort, unless an answer won the race, and
 * returns the request as it was settled.
 */
export async function awaitApproval(
  paths: TaskPaths,
  n: number,
  options: AwaitApprovalOptions,
  now: () => number,
  hooks: StoreHooks,
): Promise<ApprovalRequest> {
  const bell = new ChangeBell(paths.dir, options.signal);
  const giveUpAt = now() + options.timeoutMs;
  try {
    for (;;) {
      const request = (await readApprovals(paths)).find((r) => r.n === n);
      if (request === undefined) throw new ApprovalNotFoundError(noApprovalRequest(paths.id, n));
      if (request.state === "answered") return request;
      const aborted = options.signal?.aborted === true;
      if (aborted || now() >= giveUpAt) {
        const answer: ApprovalAnswer = aborted
          ? { decision: "deny", answeredBy: "ended", reason: "the task's run ended first" }
          : {
              decision: "deny",
              answeredBy: "timeout",
              reason: `nobody answered within ${Math.round(options.timeoutMs / 1000)} s`,
            };
        try {
          return await answerApproval(paths, n, answer, now(), hooks);
        } catch (error) {
          // A person answered between the read and the lock: theirs stands.
          if (error instanceof ApprovalAnsweredError) continue;
          throw error;
        }
      }
      await bell.wait(giveUpAt - now());
    }
  } finally {
    bell.close();
  }
}
