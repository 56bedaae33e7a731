// `warden show`: one task in full: its state, its settings, what its agent did (turns, tools,
// usage and cost, approvals), how it ended.
import type { Command } from "commander";
import { dollars, spendText, taskSpend, type SpendTotals } from "../host/index.js";
import { durationText, timeText } from "../lang/index.js";
import { cleanLine } from "../protocol/index.js";
import {
  Tasks,
  type ApprovalRequest,
  type TaskDetails,
  type TaskEvent,
  type TaskStore,
} from "../store/index.js";
import { agentActivity, SHOWN_TYPES, type AgentActivity } from "./agentActivity.js";
import { checkpointRows, checkpointView } from "./checkpointView.js";
import { colourWanted, paintState } from "./colour.js";
import { withStore } from "./context.js";
import { failureTail } from "./failureTail.js";
import { mcpServersView } from "./mcpView.js";
import { settingsLines } from "./settingsText.js";
import { shownId } from "./shownIds.js";
import { setupText, setupView } from "./setupView.js";
import { detailsView, nextSteps, printJson, stateWords, type TaskView } from "./taskView.js";
import { eventLine } from "./eventLine.js";
import { workspaceLines, workspacesView } from "./workspacesView.js";
import { standardOut } from "./standardStreams.js";

async function readEvents(tasks: TaskStore, id: string): Promise<TaskEvent[]> {
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

/** What the relay metered for the task: its record, else what its terminal record kept. */
async function spendOf(tasks: TaskStore, details: TaskDetails): Promise<SpendTotals | undefined> {
  // A fleet's task is metered on its worker; its terminal record keeps the sum.
  const recorded = tasks instanceof Tasks ? await taskSpend(tasks.dataDir, details.id) : undefined;
  if (recorded !== undefined) return recorded;
  const kept = details.terminal?.details?.spend;
  return typeof kept === "object" && kept !== null ? (kept as SpendTotals) : undefined;
}

/**
 * The settings as shown: the agent's and the host's, with the names of --env, never values.
 * They are read as plain fields, not checked against the host's schema: the create step checked
 * them, settingsPairs shows any value defensively and cleaned, and building the schema would
 * cost `show` a fifth of its start.
 */
function settingsView(details: TaskDetails): Record<string, unknown> | undefined {
  const host = details.spec.settings;
  if (host.version !== 1 || !isFields(host.guest)) return undefined;
  return {
    ...host.guest,
    sandbox: host.sandbox,
    allow: host.allow,
    presets: host.presets,
    env: host.envNames,
    limits: host.limits,
    approval: host.approval,
    setup: host.setup,
    mcpServers: mcpServersView(host.guest.mcpServers),
    skillsDir: host.skillsDir,
  };
}

function isFields(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** When the task ended, and how long it took: `14:05:09, after 3m 02s`. */
function finishedText(details: TaskDetails, now: number): string | undefined {
  if (details.finishedAt === undefined) return undefined;
  const took = durationText(details.finishedAt - details.createdAt);
  return `${timeText(details.finishedAt, now)}, after ${took}`;
}

/** The prompts that wait for a person, each with its age, and how to answer them. */
function waitingLines(pending: readonly ApprovalRequest[], short: string, now: number): string[] {
  if (pending.length === 0) return [];
  return [
    "waiting for an answer:",
    ...pending.map(
      (r) =>
        `  ${r.n}  ${durationText(now - r.askedAt)}  ${cleanLine(r.tool)}: ${cleanLine(r.input)}`,
    ),
    `  answer: warden approve ${short} N allow|deny`,
  ];
}

export function registerShow(program: Command): void {
  program
    .command("show")
    .summary("show one task")
    .description("Show a task: its state, repository, start commit, settings and how it ended.")
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--json", "print one JSON object")
    .action(async (ref: string, flags: { json?: boolean }, cmd: Command) =>
      withStore(cmd, async ({ store }) => showTask(store, ref, flags)),
    );
}

async function showTask(tasks: TaskStore, ref: string, flags: { json?: boolean }): Promise<void> {
  const details = await tasks.get(ref);
  const view = detailsView(details);
  const short = await shownId(tasks, details.id);
  const settings = settingsView(details);
  const events = await readEvents(tasks, details.id);
  const activity = agentActivity(events);
  const setup = setupView(details.spec.settings, events);
  const spend = await spendOf(tasks, details);
  const workspaces = workspacesView(details);
  const checkpoints = checkpointView(events);
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
      spend,
      settings,
      holder: details.holder,
      details: details.terminal?.details,
      setup,
      ...(workspaces.length === 0 ? {} : { workspaces }),
      ...(checkpoints === undefined ? {} : { checkpoints }),
    });
    return;
  }
  const now = Date.now();
  // A finished task's prompts wait for nobody, whatever its file still says.
  const pending =
    details.approvals.pending === 0 || details.terminal !== undefined
      ? []
      : (await tasks.approvals(details.id)).filter((r) => r.state === "pending");
  const waits = view.state === "running" && pending.length > 0;
  const rows: [string, string | undefined][] = [
    ["id", view.id],
    ["state", waits ? `${stateWords(view)} (waiting for approval)` : stateWords(view)],
    ["title", view.title],
    ["repo", view.repo],
    ["base", view.base],
    ["head", view.head ?? undefined],
    ["created", timeText(details.createdAt, now)],
    ["deadline", timeText(details.deadline, now)],
    ["finished", finishedText(details, now)],
    ["attempts", view.attempts === undefined ? undefined : String(view.attempts)],
    ...checkpointRows(checkpoints, now),
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
    ["suspended", suspendedText(view, short, now)],
    ["setup", setup === undefined ? undefined : setupText(setup)],
    ["agent", agentLine(details, activity)],
    // The relay's measure: what the host counts against the task's budget.
    ["cost", spend === undefined ? undefined : spendText({ ...spend })],
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
  ];
  const colour = colourWanted(standardOut, process.env);
  for (const [name, value] of rows) {
    if (value === undefined) continue;
    // The state is painted after it is cleaned: its escapes are warden's own.
    const text =
      name === "state" ? paintState(cleanLine(value), view.state, colour, waits) : cleanLine(value);
    standardOut.write(`${(name + ":").padEnd(12)}${text}\n`);
  }
  for (const line of waitingLines(pending, short, now)) standardOut.write(line + "\n");
  for (const line of workspaceLines(workspaces)) standardOut.write(line + "\n");
  const settingLines = settings === undefined ? [] : settingsLines(settings);
  if (settingLines.length > 0) standardOut.write(["settings:", ...settingLines, ""].join("\n"));
  if (activity !== undefined && activity.recent.length > 0) {
    standardOut.write("recent:\n");
    for (const event of activity.recent) standardOut.write(`  ${eventLine(event)}\n`);
  }
  if (view.state === "failed") {
    const tail = await failureTail(tasks, details.id, short, { skipTypes: SHOWN_TYPES });
    for (const line of tail) standardOut.write(line + "\n");
  }
  for (const step of nextSteps(view, short)) standardOut.write(`  ${step}\n`);
}

/** Why a suspended task is suspended and when it goes on, with the verb that resumes it now. */
function suspendedText(view: TaskView, short: string, now: number): string | undefined {
  const suspended = view.suspended;
  if (suspended === undefined) return undefined;
  const why = suspended.reason === "usage_limit" ? "the model API's usage limit" : "on request";
  const since = timeText(Date.parse(suspended.at), now);
  const until =
    suspended.resumeAt === undefined
      ? `; \`warden resume ${short}\` runs it on`
      : `; resumes by itself at ${timeText(Date.parse(suspended.resumeAt), now)}`;
  const detail = suspended.detail === undefined ? "" : ` (${suspended.detail})`;
  return `${why} since ${since}${detail}${until}`;
}
