// `warden serve` resumes the suspended tasks whose resume time has come when no process waits to
// resume them (the process that ran the task died, or the machine restarted while it waited).
// The plan is pure; the server asks for it every WEB_LIMITS.resumeScanMs and starts each task in
// the background, as its dashboard's "start" does.
import type { Tasks, TaskSummary } from "../store/index.js";
import { WEB_LIMITS } from "./limits.js";

/** The ids of the tasks due to resume now, with nobody waiting for them, before their deadline. */
export function dueForResume(tasks: readonly TaskSummary[], now: number): string[] {
  return tasks
    .filter((task) => {
      const resumeAt = task.suspension?.resumeAt;
      return (
        task.state === "suspended" &&
        resumeAt !== undefined &&
        resumeAt <= now &&
        task.resumeWaiter !== true &&
        now < task.deadline
      );
    })
    .map((task) => task.id);
}

export interface DueResumerOptions {
  /** Starts the task in a background process; rejects when that process failed at once. */
  readonly runInBackground: (id: string) => Promise<void>;
  readonly onProblem: (message: string) => void;
}

export interface RunningResumer {
  close(): void;
}

export function startDueResumer(tasks: Tasks, options: DueResumerOptions): RunningResumer {
  let scanning = false;
  const scan = async (): Promise<void> => {
    if (scanning) return;
    scanning = true;
    try {
      const suspended = await tasks.list({ states: ["suspended"] });
      for (const id of dueForResume(suspended, Date.now())) {
        await options.runInBackground(id).catch((error: unknown) => {
          options.onProblem(`could not resume ${id}: ${String(error)}`);
        });
      }
    } catch (error) {
      options.onProblem(`could not look for tasks to resume: ${String(error)}`);
    } finally {
      scanning = false;
    }
  };
  const timer = setInterval(() => void scan(), WEB_LIMITS.resumeScanMs);
  void scan();
  return {
    close: () => {
      clearInterval(timer);
    },
  };
}
