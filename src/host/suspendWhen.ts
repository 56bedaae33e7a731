// When a request to suspend a running task takes effect. An agent that reports turns (Claude
// Code, Codex, Gemini) is stopped at its next turn boundary, after that boundary's checkpoint;
// `now` stops it at once, and so does an agent without turns (a command), which has no boundary
// to wait for. The executor acts on this and everything that tells a person about it says it.
import type { TaskSummary } from "../store/index.js";
import { listFacts } from "./listFacts.js";

export type SuspendWhen = "at_once" | "at_turn_boundary";

/** Whether an agent reports turn boundaries: every agent but a command does. Pure. */
export function agentHasTurns(agent: string | undefined): boolean {
  return agent !== "command";
}

/** When a request (`now` or not) to suspend a task running `agent` takes effect. Pure. */
export function suspendWhen(agent: string | undefined, now: boolean): SuspendWhen {
  return now || !agentHasTurns(agent) ? "at_once" : "at_turn_boundary";
}

/** The same, for a task as the store lists it. Pure. */
export function suspendWhenOf(
  task: Pick<TaskSummary, "settings" | "details">,
  now: boolean,
): SuspendWhen {
  return suspendWhen(listFacts(task).agent, now);
}

/** When it takes effect and why, in a person's words. Pure. */
export function suspendWhenText(when: SuspendWhen, now: boolean): string {
  if (when === "at_turn_boundary") return "at its next turn boundary";
  return now ? "at once" : "at once (its agent, a command, has no turn boundaries)";
}
