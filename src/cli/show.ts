// `warden show`: one task in full: its state, its settings, how it ended.
import type { Command } from "commander";
import { readHostSettings } from "../host/index.js";
import { cleanLine } from "../protocol/index.js";
import type { TaskDetails } from "../store/index.js";
import { openTasks } from "./context.js";
import { detailsView, nextSteps, printJson } from "./taskView.js";

/** The settings as shown: the agent's and the host's, with the names of --env, never values. */
function settingsView(details: TaskDetails): Record<string, unknown> | undefined {
  try {
    const host = readHostSettings(details.id, details.spec.settings);
    return {
      ...host.guest,
      sandbox: host.sandbox,
      allow: host.allow,
      presets: host.presets,
      env: host.envNames,
      ...(host.limits === undefined ? {} : { limits: host.limits }),
    };
  } catch {
    return undefined;
  }
}

export function registerShow(program: Command): void {
  program
    .command("show")
    .summary("show one task")
    .description("Show a task: its state, repository, start commit, settings and how it ended.")
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--json", "print one JSON object")
    .action(async (ref: string, flags: { json?: boolean }, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const details = await tasks.get(ref);
      const view = detailsView(details);
      const settings = settingsView(details);
      if (flags.json === true) {
        printJson({
          ...view,
          parent: details.parent,
          children: details.children,
          hop: details.hop,
          labels: details.labels,
          messages: details.messages,
          ...(settings === undefined ? {} : { settings }),
          ...(details.holder === undefined ? {} : { holder: details.holder }),
          ...(details.terminal?.details === undefined ? {} : { details: details.terminal.details }),
        });
        return;
      }
      const rows: [string, string | undefined][] = [
        ["id", view.id],
        ["state", view.stoppedBy == null ? view.state : `${view.state} (${view.stoppedBy})`],
        ["title", view.title],
        ["repo", view.repo],
        ["base", view.base],
        ["head", view.head ?? undefined],
        ["created", view.createdAt],
        ["deadline", view.deadline],
        ["finished", view.finishedAt],
        ["attempts", view.attempts === undefined ? undefined : String(view.attempts)],
        ["summary", view.summary],
        ["error", view.error],
        [
          "running in",
          details.holder === undefined
            ? undefined
            : `pid ${details.holder.pid} on ${details.holder.host}`,
        ],
        ["parent", details.parent ?? undefined],
        ["children", details.children.length === 0 ? undefined : details.children.join(", ")],
        ["cancel", view.cancelRequested ? "requested" : undefined],
        ["settings", settings === undefined ? undefined : JSON.stringify(settings)],
      ];
      for (const [name, value] of rows) {
        if (value !== undefined)
          process.stdout.write(`${(name + ":").padEnd(12)}${cleanLine(value)}\n`);
      }
      for (const step of nextSteps(view)) process.stdout.write(`  ${step}\n`);
    });
}
