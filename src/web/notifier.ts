// Notifications for a person: `warden serve --notify CMD` and `--webhook URL` are told each task
// that ends (succeeded, failed, cancelled, or stopped by a bound) and each approval request that
// waits for a person, as JSON. The store's own file notices say which tasks changed; what was
// true before the server started is not told.
import type { Tasks } from "../store/index.js";
import { cleanJson } from "./cleanJson.js";
import { ListWatch } from "./listWatch.js";
import { markTold, notificationsFor, type TaskNow, type Told } from "./notifyEvents.js";
import {
  commandDelivery,
  NOTIFY_TIMING,
  NotifyQueue,
  webhookDelivery,
  type NotifyTiming,
} from "./notifyQueue.js";

export interface NotifyOptions {
  /** Run by `sh -c` with each notification's JSON on stdin. */
  readonly commands?: readonly string[];
  /** POSTed each notification's JSON. */
  readonly webhooks?: readonly string[];
  /** Told when a notification could not be sent; the server goes on. */
  readonly onProblem: (message: string) => void;
  readonly timing?: NotifyTiming;
}

export interface RunningNotifier {
  close(): Promise<void>;
}

/** What a task is now, or undefined when it has gone. */
async function taskNow(tasks: Tasks, id: string): Promise<TaskNow | undefined> {
  try {
    const details = await tasks.get(id);
    const finished = details.terminal !== undefined;
    const pending = finished
      ? []
      : (await tasks.approvals(id))
          .filter((request) => request.state === "pending")
          .map((request) => ({ n: request.n, tool: request.tool, input: request.input }));
    return {
      id,
      title: details.title,
      ...(details.repo === undefined ? {} : { repo: details.repo }),
      state: details.state,
      ...(details.stoppedBy === undefined ? {} : { stoppedBy: details.stoppedBy }),
      finished,
      pending,
    };
  } catch {
    return undefined;
  }
}

export async function startNotifier(
  tasks: Tasks,
  options: NotifyOptions,
): Promise<RunningNotifier> {
  const timing = options.timing ?? NOTIFY_TIMING;
  const queues = [
    ...(options.commands ?? []).map((command) => commandDelivery(command)),
    ...(options.webhooks ?? []).map((url) => webhookDelivery(url)),
  ].map((deliver) => new NotifyQueue(deliver, options.onProblem, timing));
  const told: Told = new Set();
  // Tasks as they are at the start are not news: each is marked told.
  for (const summary of await tasks.list()) {
    const finished = summary.finishedAt !== undefined;
    const now = finished
      ? { id: summary.id, title: "", state: summary.state, finished, pending: [] }
      : await taskNow(tasks, summary.id);
    if (now !== undefined) markTold(now, told);
  }
  // One look at a time, in order: the notices of a burst come as one set anyway.
  let looking = Promise.resolve();
  const look = async (ids: ReadonlySet<string>): Promise<void> => {
    for (const id of ids) {
      const now = await taskNow(tasks, id);
      if (now === undefined) continue;
      for (const notification of notificationsFor(now, told, Date.now())) {
        const clean = cleanJson(notification) as typeof notification;
        for (const queue of queues) queue.push(clean);
      }
    }
  };
  const watch = new ListWatch(tasks.dataDir, (ids) => {
    looking = looking.then(() => look(ids)).catch(() => undefined);
  });
  return {
    close: async () => {
      watch.close();
      await looking;
      await Promise.all(queues.map((queue) => queue.close()));
    },
  };
}
