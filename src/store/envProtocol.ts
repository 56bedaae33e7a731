// The environment protocol (DESIGN.md): the variables set for every command an agent runs, and
// reading them back. A blank or malformed WARDEN_TASK_ID is somebody else's variable, not
// warden's (warden always sets a well-formed one), so it means "not inside a task".
import { ENV, MAX_HOP } from "../protocol/index.js";
import { isTaskId } from "./taskId.js";

/** The task this process runs inside, as its environment says. */
export interface CurrentTask {
  id: string;
  /** The parent's id, when the task has one and the variable is well formed. */
  parent?: string;
  /** The hop the task's work arrived at; 0 when absent or malformed. */
  hop: number;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The current task, or undefined outside any task. */
export function currentTask(env: Env = process.env): CurrentTask | undefined {
  const id = env[ENV.taskId]?.trim();
  if (id === undefined || id === "" || !isTaskId(id)) return undefined;
  const current: CurrentTask = { id, hop: 0 };
  const parent = env[ENV.parentTaskId]?.trim();
  if (parent !== undefined && isTaskId(parent)) current.parent = parent;
  const hop = env[ENV.hop]?.trim();
  if (hop !== undefined && /^\d+$/.test(hop)) current.hop = Math.min(Number(hop), MAX_HOP + 1);
  return current;
}

/** The variables for a command run by a task. Only variables that apply are set. */
export function taskEnvironment(
  task: { id: string; parent: string | null; hop: number },
  where: { dataDir?: string; metadataUrl?: string } = {},
): Record<string, string> {
  const env: Record<string, string> = { [ENV.taskId]: task.id };
  if (task.parent !== null) env[ENV.parentTaskId] = task.parent;
  if (task.hop !== 0) env[ENV.hop] = String(task.hop);
  if (where.metadataUrl !== undefined) env[ENV.metadataUrl] = where.metadataUrl;
  if (where.dataDir !== undefined) env[ENV.dataDir] = where.dataDir;
  return env;
}
