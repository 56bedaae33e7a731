// What the dashboard shows of a task, as JSON for its page: the list row and the task's page.
// Built from the store's summaries and the host's list facts; every string is cleaned.
import { listFacts } from "../host/index.js";
import type { ApprovalRequest, InboxMessage, TaskDetails, TaskSummary } from "../store/index.js";
import { cleanJson } from "./cleanJson.js";

export interface TaskRow {
  readonly id: string;
  readonly shortId: string;
  readonly state: string;
  readonly stoppedBy?: string;
  readonly title: string;
  readonly repo?: string;
  readonly createdAt: number;
  readonly finishedAt?: number;
  readonly parent: string | null;
  readonly agent?: string;
  readonly changes?: boolean;
  readonly commits?: number;
  readonly costUSD?: number;
  /** Permission prompts waiting for a person. */
  readonly approvalsPending: number;
  /** A suspended task's suspension: why, since when, and when it resumes by itself if it does. */
  readonly suspended?: { reason: string; at: number; resumeAt?: number };
}

export function taskRow(task: TaskSummary, shortId: string, approvalsPending: number): TaskRow {
  return cleanJson({
    id: task.id,
    shortId,
    state: task.state,
    ...(task.stoppedBy === undefined ? {} : { stoppedBy: task.stoppedBy }),
    title: task.title,
    ...(task.repo === undefined ? {} : { repo: task.repo }),
    createdAt: task.createdAt,
    ...(task.finishedAt === undefined ? {} : { finishedAt: task.finishedAt }),
    parent: task.parent,
    ...listFacts(task),
    approvalsPending,
    ...(task.state === "suspended" && task.suspension !== undefined
      ? {
          suspended: {
            reason: task.suspension.reason,
            at: task.suspension.at,
            ...(task.suspension.resumeAt === undefined
              ? {}
              : { resumeAt: task.suspension.resumeAt }),
          },
        }
      : {}),
  }) as TaskRow;
}

export interface TaskPage extends TaskRow {
  readonly deadline: number;
  readonly children: readonly string[];
  readonly settings: Record<string, unknown>;
  readonly summary?: string;
  readonly details?: Record<string, unknown>;
  readonly messages: Record<string, number>;
  readonly approvals: readonly ApprovalRequest[];
  /** The messages sent to the task, each with its state and, once answered, the reply. */
  readonly inbox: readonly InboxMessage[];
}

export function taskPage(
  task: TaskDetails,
  shortId: string,
  approvals: readonly ApprovalRequest[],
  inbox: readonly InboxMessage[],
): TaskPage {
  const pending = approvals.filter((request) => request.state === "pending").length;
  return cleanJson({
    ...taskRow(task, shortId, pending),
    deadline: task.deadline,
    children: task.children,
    settings: task.settings,
    ...(task.summary === undefined ? {} : { summary: task.summary }),
    ...(task.details === undefined ? {} : { details: task.details }),
    messages: task.messages,
    approvals,
    inbox,
  }) as TaskPage;
}
