// `warden ls`: every task, oldest first, with its state.
import { Option, type Command } from "commander";
import { cleanLine } from "../protocol/index.js";
import { TASK_STATES, type TaskState, type TaskSummary } from "../store/index.js";
import { collect, openTasks } from "./context.js";
import { printJson, stateWords, taskView } from "./taskView.js";

function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

function stateText(task: TaskSummary): string {
  return stateWords(taskView(task), "");
}

export function registerLs(program: Command): void {
  program
    .command("ls")
    .summary("list tasks")
    .description("List every task in the data directory, oldest first, with its state.")
    .addOption(
      new Option("--state <state>", "only tasks in this state (repeatable)")
        .choices([...TASK_STATES])
        .argParser(collect),
    )
    .option("--json", "print a JSON array")
    .action(async (flags: { state?: string[]; json?: boolean }, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const states = flags.state as TaskState[] | undefined;
      // A damaged task is named on stderr and left out; the rest are listed as always.
      const onDamaged = (id: string, error: Error): void => {
        process.stderr.write(`warden: task ${id} is left out: ${cleanLine(error.message)}\n`);
      };
      const list = await tasks.list(states === undefined ? { onDamaged } : { states, onDamaged });
      if (flags.json === true) {
        printJson(list.map((task) => taskView(task)));
        return;
      }
      if (list.length === 0) {
        process.stdout.write("no tasks\n");
        return;
      }
      const now = Date.now();
      // Each task by its shortest unique prefix: ids made within a second share 8 characters.
      const shown = await tasks.shortIds(list.map((t) => t.id));
      const idWidth = Math.max(2, ...[...shown.values()].map((id) => id.length));
      const width = Math.max(5, ...list.map((t) => stateText(t).length));
      process.stdout.write(
        `${"ID".padEnd(idWidth)}  ${"STATE".padEnd(width)}  ${"AGE".padStart(4)}  TITLE\n`,
      );
      for (const task of list) {
        const line = `${(shown.get(task.id) ?? task.id).padEnd(idWidth)}  ${stateText(task).padEnd(width)}  ${age(now - task.createdAt).padStart(4)}  ${cleanLine(task.title)}`;
        process.stdout.write(line + "\n");
      }
    });
}
