// `warden watch`: a task's events as they happen, until it finishes.
import type { Command } from "commander";
import { eventText } from "../host/index.js";
import { cleanLine } from "../protocol/index.js";
import type { TaskEvent } from "../store/index.js";
import { openTasks } from "./context.js";
import { exitForState } from "./exitCodes.js";
import { whenNobodyRuns } from "./nobodyRuns.js";
import { parseCount } from "./parseValues.js";
import { printJson } from "./taskView.js";

function two(n: number): string {
  return String(n).padStart(2, "0");
}

/**
 * One event as a line of text: the agent's events, approvals and messages in words, any other
 * as `key=value`. Every value is cleaned: progress lines and agent events are sandbox text.
 */
export function eventLine(event: TaskEvent): string {
  const at = new Date(event.at);
  const time = `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
  const { seq: _seq, at: _at, type, ...rest } = event;
  let text: string;
  const readable = eventText(type, rest);
  if (readable !== undefined) text = readable;
  else {
    text = Object.entries(rest)
      .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
      .join(" ");
  }
  return `${time} ${cleanLine(type)}: ${cleanLine(text)}`;
}

export function registerWatch(program: Command): void {
  program
    .command("watch")
    .summary("follow a task's events until it finishes")
    .description(
      "Print a task's events (progress, the agent's turns, tool calls, usage and cost, " +
        "approvals, messages, warnings, its end) from the start, then follow them until the " +
        "task finishes. Exits with the task's exit status. --json prints each event raw. A " +
        "task nobody runs (created, or interrupted) is not followed: exit 4, with how to start it.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--since <seq>", "only events after this sequence number")
    .option("--no-follow", "print the events so far and return")
    .option("--json", "print each event as a JSON line")
    .action(
      async (
        ref: string,
        flags: { since?: string; follow: boolean; json?: boolean },
        cmd: Command,
      ) => {
        const tasks = await openTasks(cmd);
        const id = await tasks.resolve(ref);
        const since = flags.since === undefined ? 0 : parseCount(flags.since, "--since");
        // Following a task nobody runs would never end: the look stops the watch and says so.
        const stop = new AbortController();
        let nobodyRuns: Error | undefined;
        const look = flags.follow
          ? whenNobodyRuns(tasks, id, stop.signal).then((error) => {
              nobodyRuns = error;
              stop.abort();
            })
          : Promise.resolve();
        try {
          for await (const event of tasks.watch(id, {
            since,
            follow: flags.follow,
            signal: stop.signal,
          })) {
            if (flags.json === true) printJson(event);
            else process.stdout.write(eventLine(event) + "\n");
          }
        } finally {
          stop.abort();
        }
        await look;
        if (nobodyRuns !== undefined) throw nobodyRuns;
        const summary = await tasks.get(id);
        process.exitCode = exitForState(summary.state, summary.stoppedBy);
      },
    );
}
