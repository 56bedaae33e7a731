// `warden cancel`: ask a task (and its unfinished descendants) to end.
import type { Command } from "commander";
import type { CancelOutcome } from "../store/index.js";
import { withStore } from "./context.js";
import { printJson } from "./taskView.js";
import { standardOut } from "./standardStreams.js";

export function registerCancel(program: Command): void {
  program
    .command("cancel")
    .summary("cancel tasks and their descendants")
    .description(
      "Ask a task to end: its executor stops the sandbox (SIGTERM, a grace, SIGKILL) and records " +
        "it cancelled. A task nobody runs is recorded cancelled at once. Its unfinished " +
        "descendants are cancelled with it. Returns once the request is written; `warden wait` " +
        "waits for the end. Several ids cancel each of them, one line (or JSON object) each.",
    )
    .argument("<ids...>", "the tasks' ids or unique prefixes of them")
    .option("--json", "print each outcome as JSON, one object a line")
    .action(async (refs: string[], flags: { json?: boolean }, cmd: Command) => {
      await withStore(cmd, async ({ store: tasks }) => {
        // Every id is resolved before any task is cancelled: a typo cancels nothing.
        const ids = [...new Set(await Promise.all(refs.map((ref) => tasks.resolve(ref))))];
        for (const id of ids) {
          const outcome = await tasks.cancel(id);
          if (flags.json === true) printJson(outcome);
          else standardOut.write(cancelLine(outcome) + "\n");
        }
      });
    });
}

/** What a cancel did to one task, in a person's words. */
function cancelLine(outcome: CancelOutcome): string {
  if (outcome.finished !== undefined) {
    return `${outcome.id} had already finished (${outcome.finished.state})`;
  }
  const others = outcome.marked.length - 1;
  const more = others > 0 ? ` and ${others} descendant${others === 1 ? "" : "s"}` : "";
  const now = outcome.recorded.includes(outcome.id) ? "cancelled" : "cancelling";
  return `${outcome.id} ${now}${more}`;
}
