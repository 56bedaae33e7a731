// The shapes of what the server answers for one task (src/web/taskViews.ts and the event feed).
// Every string in them came through the server's cleaning; the page still shows each as text.
import type { TaskRow } from "./listView.js";

export interface Approval {
  n: number;
  state: string;
  tool?: string;
  input?: unknown;
  summary?: string;
}

/** A message a person sent the task, and where it has got to. */
export interface InboxEntry {
  n: number;
  body: string;
  state: "pending" | "in_flight" | "delivered";
  reply?: string;
  replyCut?: boolean;
}

export interface TaskPage extends TaskRow {
  deadline: number;
  children: string[];
  parent: string | null;
  settings: Record<string, unknown>;
  summary?: string;
  approvals: Approval[];
  inbox: InboxEntry[];
}

/** One event of the task's feed; `shown` is the line `warden watch` prints for it, when it has one. */
export interface TaskEvent {
  seq: number;
  /** When the store wrote it, in ms since the epoch. */
  at: number;
  type: string;
  shown?: string;
  [field: string]: unknown;
}

export interface DiffAnswer {
  diff: string;
  commits?: { sha: string; subject: string }[];
}
