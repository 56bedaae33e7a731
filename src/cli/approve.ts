// `warden approve` and `warden approvals`: the permission prompts a task's agent put to a person
// (approve `prompt`), and the answer to one of them.
import type { Command } from "commander";
import { cleanLine } from "../protocol/index.js";
import type { ApprovalRequest } from "../store/index.js";
import { UsageError } from "./cliErrors.js";
import { openTasks } from "./context.js";
import { parseCount } from "./parseValues.js";
import { printJson } from "./taskView.js";

/** One request as a line: `3  pending  Bash: make deploy`, every text cleaned. */
export function approvalLine(request: ApprovalRequest): string {
  const state =
    request.state === "pending"
      ? "pending"
      : `${request.decision === "allow" ? "allowed" : "denied"} (${request.answeredBy ?? "?"})`;
  const reason = request.reason === undefined ? "" : ` — ${cleanLine(request.reason)}`;
  return `${String(request.n).padStart(3)}  ${state.padEnd(18)} ${cleanLine(request.tool)}: ${cleanLine(request.input)}${reason}`;
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
        const tasks = await openTasks(cmd);
        const id = await tasks.resolve(ref);
        const request = await tasks.approve(id, n, decision, { reason: flags.reason });

        if (flags.json === true) printJson({ id, ...request });
        else
          process.stdout.write(
            `${decision === "allow" ? "allowed" : "denied"} request ${n} of ${id}\n`,
          );
      },
    );

  program
    .command("approvals")
    .summary("list a task's permission prompts")
    .description(
      "List the permission prompts a task's agent put to a person, pending and answered, with " +
        "the command to answer the pending ones.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--pending", "only the prompts that wait for an answer")
    .option("--json", "print a JSON array")
    .action(async (ref: string, flags: { pending?: boolean; json?: boolean }, cmd: Command) => {
      const tasks = await openTasks(cmd);
      const id = await tasks.resolve(ref);
      const all = await tasks.approvals(id);
      const shown = flags.pending === true ? all.filter((r) => r.state === "pending") : all;
      if (flags.json === true) {
        printJson(shown);
        return;
      }
      for (const request of shown) process.stdout.write(approvalLine(request) + "\n");
      if (shown.some((r) => r.state === "pending")) {
        process.stdout.write(`answer: warden approve ${await tasks.shortId(id)} N allow|deny\n`);
      } else if (shown.length === 0) {
        process.stdout.write(
          `task ${id} has no ${flags.pending === true ? "pending " : ""}approval requests\n`,
        );
      }
    });
}
