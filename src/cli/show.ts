// `warden show`: one task in full: its state, its settings, what its agent did (turns, tools,
// usage and cost, approvals), how it ended.
import type { Command } from "commander";
import { dollars, readHostSettings } from "../host/index.js";
import { cleanLine } from "../protocol/index.js";
import type { TaskDetails, TaskEvent, Tasks } from "../store/index.js";
import { agentActivity, type AgentActivity } from "./agentActivity.js";
import { openTasks } from "./context.js";
import { detailsView, nextSteps, printJson, stateWords } from "./taskView.js";
import { eventLine } from "./watch.js";

async function readEvents(tasks: Tasks, id: string): Promise<TaskEvent[]> {
  const events: TaskEvent[] = [];
  for await (const event of tasks.watch(id, { follow: false })) events.push(event);
  return events;
}

/** The agent's own account at its end (terminal details), else what its events say so far. */
function agentLine(details: TaskDetails, activity: AgentActivity | undefined): string | undefined {
  const account = details.terminal?.details?.agent as Record<string, unknown> | undefined;
  const turns = typeof account?.turns === "number" ? account.turns : activity?.turns;
  const cost = typeof account?.costUSD === "number" ? account.costUSD : activity?.usage?.costUSD;
  const parts: string[] = [];
  if (turns !== undefined && turns > 0) parts.push(`${turns} turn${turns === 1 ? "" : "s"}`);
  if (cost !== undefined) parts.push(dollars(cost));
  if (activity !== undefined) {
    if (activity.usage !== undefined) {
      parts.push(`${activity.usage.inputTokens} tokens in, ${activity.usage.outputTokens} out`);
    }
    parts.push(`${activity.toolUses} tool call${activity.toolUses === 1 ? "" : "s"}`);
    if (activity.toolErrors > 0) parts.push(`${activity.toolErrors} failed`);
    if (activity.retries > 0) parts.push(`${activity.retries} API retries`);
    if (activity.permissionDenials > 0) parts.push(`${activity.permissionDenials} denied`);
  }
  if (account?.madeUp === true) parts.push("its result made up by the runner");
  return parts.length === 0 ? undefined : parts.join(", ");
}

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
      limits: host.limits,
      approval: host.approval,
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
      const short = await tasks.shortId(details.id);
      const settings = settingsView(details);
      const activity = agentActivity(await readEvents(tasks, details.id));
      if (flags.json === true) {
        const { recent: _recent, ...counts } = activity ?? { recent: [] };
        printJson({
          ...view,
          parent: details.parent,
          children: details.children,
          hop: details.hop,
          labels: details.labels,
          messages: details.messages,
          approvals: details.approvals,
          activity: activity === undefined ? undefined : counts,
          settings,
          holder: details.holder,
          details: details.terminal?.details,
        });
        return;
      }
      const rows: [string, string | undefined][] = [
        ["id", view.id],
        ["state", stateWords(view)],
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
        ["agent", agentLine(details, activity)],
        [
          "messages",
          details.messages.pending + details.messages.in_flight + details.messages.delivered === 0
            ? undefined
            : `${details.messages.delivered} answered, ${details.messages.in_flight} with the agent, ${details.messages.pending} waiting`,
        ],
        [
          "approvals",
          details.approvals.pending + details.approvals.answered === 0
            ? undefined
            : `${details.approvals.pending} waiting, ${details.approvals.answered} answered` +
              (details.approvals.pending > 0 ? ` (see \`warden approvals ${short}\`)` : ""),
        ],
        ["settings", settings === undefined ? undefined : JSON.stringify(settings)],
      ];
      for (const [name, value] of rows) {
        if (value !== undefined)
          process.stdout.write(`${(name + ":").padEnd(12)}${cleanLine(value)}\n`);
      }
      if (activity !== undefined && activity.recent.length > 0) {
        process.stdout.write("recent:\n");
        for (const event of activity.recent) process.stdout.write(`  ${eventLine(event)}\n`);
      }
      for (const step of nextSteps(view, short)) process.stdout.write(`  ${step}\n`);
    });
}
