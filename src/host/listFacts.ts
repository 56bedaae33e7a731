// What a list shows of a task beyond its state: the agent the host runs it with, the commits it
// verified, and its cost: what the relay metered once the task has ended, else what the agent
// reported. Read from the store's opaque settings and terminal
// details without checking them whole, so one odd task never keeps a list from showing.
import type { TaskSummary } from "../store/index.js";

export interface ListFacts {
  /** The agent named in the task's settings; absent for a task the host did not make. */
  agent?: string;
  /** Once finished: whether there are verified changes to fetch. */
  changes?: boolean;
  /** Once finished with changes: how many commits the host verified. */
  commits?: number;
  /**
   * The cost in US dollars: the relay's measure, which the terminal record keeps under
   * `spend`, or else the agent's own report.
   */
  costUSD?: number;
}

function field(value: unknown, key: string): unknown {
  return typeof value === "object" && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

export function listFacts(task: Pick<TaskSummary, "settings" | "details">): ListFacts {
  const facts: ListFacts = {};
  const agent = field(task.settings.guest, "agent");
  if (typeof agent === "string") facts.agent = agent;
  const changes = field(task.details, "changes");
  if (typeof changes === "boolean") facts.changes = changes;
  const commits = field(task.details, "commits");
  if (typeof commits === "number" && Number.isSafeInteger(commits)) facts.commits = commits;
  const measured = field(field(task.details, "spend"), "costUSD");
  const cost = isCost(measured) ? measured : field(field(task.details, "agent"), "costUSD");
  if (isCost(cost)) facts.costUSD = cost;
  return facts;
}

function isCost(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value) && value >= 0;
}
