// `warden approve` and `warden approvals`: the permission prompts a task's agent put to a person
// (approve `prompt`), one task's or every one that waits across tasks, and the answer to one.
import type { Command } from "commander";
import { durationText, isoTime } from "../lang/index.js";
import { cleanLine } from "../protocol/index.js";
import type { ApprovalRequest, TaskStore } from "../store/index.js";
import { UsageError } from "./cliErrors.js";
import { withStore } from "./context.js";
import { CLI_LIMITS } from "./limits.js";
import { parseCount } from "./parseValues.js";
import { shownId, shownIds } from "./shownIds.js";
import { cut, tableWidth } from "./taskTable.js";
import { printJson } from "./taskView.js";
import { standardOut } from "./standardStreams.js";

/** One request as a line: `3  pending  Bash: make deploy`, every text cleaned. */
export function approvalLine(request: ApprovalRequest): string {
  const state =
    request.state === "pending"
      ? "pending"
      : `${request.decision === "allow" ? "allowed" : "denied"} (${request.answeredBy ?? "?"})`;
  const reason = request.reason === undefined ? "" : ` — ${cleanLine(request.reason)}`;
  return `${String(request.n).padStart(3)}  ${state.padEnd(18)} ${cleanLine(request.tool)}: ${cleanLine(request.input)}${reason}`;
}

/** A request as JSON shows it: its times in ISO 8601. */
export function requestView(request: ApprovalRequest): Record<string, unknown> {
  return {
    ...request,
    askedAt: isoTime(request.askedAt),
    ...(request.answeredAt === undefined ? {} : { answeredAt: isoTime(request.answeredAt) }),
  };
}

/** A pending request of some task, as `warden approvals` without an id lists it. */
interface WaitingRequest {
  id: string;
  request: ApprovalRequest;
}

/**
 * Every request that waits for a person, oldest first. Only unfinished tasks are read: a
 * finished task's requests were all answered when it ended.
 */
async function waitingRequests(tasks: TaskStore): Promise<WaitingRequest[]> {
  const out: WaitingRequest[] = [];
  for (const task of await tasks.list({ onDamaged: () => undefined })) {
    if (task.finishedAt !== undefined) continue;
    for (const request of await tasks.approvals(task.id)) {
      if (request.state === "pending") out.push({ id: task.id, request });
    }
  }
  return out.sort((a, b) => a.request.askedAt - b.request.askedAt);
}

/** The lines of the pending requests across tasks: a header, a row each, how to answer. */
export function waitingLines(
  waiting: readonly WaitingRequest[],
  shown: ReadonlyMap<string, string>,
  now: number,
  width: number | undefined,
): string[] {
  const rows = waiting.map(({ id, request }) => [
    shown.get(id) ?? id,
    String(request.n),
    durationText(now - request.askedAt),
    `${cleanLine(request.tool)}: ${cleanLine(request.input)}`,
  ]);
  const header = ["TASK", "N", "AGE", "REQUEST"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  // The request is the last column and the only one cut, as the title is in `ls`.
  const fixed = widths.slice(0, -1).reduce((sum, w) => sum + w + 2, 0);
  const room =
    width === undefined ? undefined : Math.max(CLI_LIMITS.lsTitleMinColumns, width - fixed);
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) =>
        i === cells.length - 1
          ? room === undefined
            ? cell
            : cut(cell, room)
          : i === 1 || i === 2
            ? cell.padStart(widths[i] ?? 0)
            : cell.padEnd(widths[i] ?? 0),
      )
      .join("  ");
  return [
    line(header),
    ...rows.map(line),
    "answer: warden approve TASK N allow|deny (or on the terminal of its foreground run)",
  ];
}

async function printWaiting(tasks: TaskStore, json: boolean): Promise<void> {
  const waiting = await waitingRequests(tasks);
  if (json) {
    printJson(waiting.map(({ id, request }) => ({ id, ...requestView(request) })));
    return;
  }
  if (waiting.length === 0) {
    standardOut.write("no approval requests wait for an answer\n");
    return;
  }
  const shown = await shownIds(tasks, [...new Set(waiting.map((w) => w.id))]);
  standardOut.write(
    waitingLines(waiting, shown, Date.now(), tableWidth(process.env, standardOut)).join("\n") +
      "\n",
  );
}

export function registerApprove(program: Command): void {
  program
    .command("approve")
    .summary("answer a permission prompt of a task")
    .description(
      "Allow or deny a tool call a task's agent asks about (a task run with --approve prompt). " +
        "The agent waits for the answer until the task's approval timeout, which denies.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .argument("<request>", "the request's number, as `warden approvals` shows it")
    .argument("<decision>", "allow or deny")
    .option("--reason <text>", "a word for the agent with the answer")
    .option("--json", "print the answered request as JSON")
    .action(
      async (
        ref: string,
        requestText: string,
        decision: string,
        flags: { reason?: string; json?: boolean },
        cmd: Command,
      ) => {
        if (decision !== "allow" && decision !== "deny") {
          throw new UsageError(`the decision ${cleanLine(decision)} is neither allow nor deny`, {
            hint: "write `warden approve ID REQUEST allow` or `... deny`",
          });
        }
        const n = parseCount(requestText, "the request number");
        const { id, request } = await withStore(cmd, async ({ store }) => {
          const id = await store.resolve(ref);
          return { id, request: await store.approve(id, n, decision, { reason: flags.reason }) };
        });

        if (flags.json === true) printJson({ id, ...request });
        else
          standardOut.write(
            `${decision === "allow" ? "allowed" : "denied"} request ${n} of ${id}\n`,
          );
      },
    );

  program
    .command("approvals")
    .summary("list permission prompts: a task's, or every one that waits")
    .description(
      "Without an id: every permission prompt that waits for a person, across all tasks, with " +
        "its task, its age and the command to answer it. With an id: the task's prompts, " +
        "pending and answered.",
    )
    .argument("[id]", "the task's id or a unique prefix of it")
    .option("--pending", "only the prompts that wait for an answer")
    .option("--json", "print a JSON array (times in ISO 8601)")
    .action(
      async (
        ref: string | undefined,
        flags: { pending?: boolean; json?: boolean },
        cmd: Command,
      ) => {
        await withStore(cmd, async ({ store }) => listApprovals(store, ref, flags));
      },
    );
}

/** Prints the prompts `warden approvals` was asked for: one task's, or every waiting one. */
async function listApprovals(
  tasks: TaskStore,
  ref: string | undefined,
  flags: { pending?: boolean; json?: boolean },
): Promise<void> {
  if (ref === undefined) {
    await printWaiting(tasks, flags.json === true);
    return;
  }
  const id = await tasks.resolve(ref);
  const all = await tasks.approvals(id);
  const shown = flags.pending === true ? all.filter((r) => r.state === "pending") : all;
  if (flags.json === true) {
    printJson(shown.map(requestView));
    return;
  }
  for (const request of shown) standardOut.write(approvalLine(request) + "\n");
  if (shown.some((r) => r.state === "pending")) {
    standardOut.write(`answer: warden approve ${await shownId(tasks, id)} N allow|deny\n`);
  } else if (shown.length === 0) {
    standardOut.write(
      `task ${id} has no ${flags.pending === true ? "pending " : ""}approval requests\n`,
    );
  }
}
