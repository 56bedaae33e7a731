// `warden run` against a fleet: the task is made with the same checks as here, its base goes
// to the fleet first (submitTask), and a worker takes it from the queue. In the foreground the
// client follows its events until its end and prints that end as a run here prints it, with
// the same exit status; with --detach it prints the id and returns. Stopping the client stops
// only the following: the task runs on in the fleet, and `warden cancel` ends it.
import type { FleetStore } from "../fleet/index.js";
import type { CreateTaskInput } from "../host/index.js";
import { mayPrompt, promptApprovals } from "./approvalPrompt.js";
import { exitForState } from "./exitCodes.js";
import { failureTail } from "./failureTail.js";
import { shownId } from "./shownIds.js";
import { lookAtWorkingTree, warnUncommitted } from "./uncommittedWarning.js";
import { detailsView, endLine, nextSteps, printJson } from "./taskView.js";
import { eventLine } from "./eventLine.js";
import { standardOut, standardError } from "./standardStreams.js";

export interface FleetRunHow {
  detach?: boolean;
  quiet?: boolean;
  json?: boolean;
}

/** Submits the task to the fleet and, unless detached, follows it to its end. */
export async function runOnFleet(
  fleet: FleetStore,
  input: CreateTaskInput,
  how: FleetRunHow,
): Promise<void> {
  const { submitTask } = await import("../fleet/index.js");
  const { summary, start } = await submitTask(fleet, input);
  await warnUncommitted(lookAtWorkingTree(start.repo), start.base, input.command);
  const id = summary.id;
  if (how.detach === true) {
    if (how.json === true) printJson({ ...detailsView(await fleet.get(id)), detached: true });
    else standardOut.write(id + "\n");
    if (how.json !== true) {
      standardError.write(`hint: follow it with \`warden watch ${await shownId(fleet, id)}\`\n`);
    }
    return;
  }
  const chatty = how.quiet !== true && how.json !== true;
  if (chatty) standardError.write(`${id} queued in the fleet; waiting for a worker to take it\n`);
  // On a terminal the person who ran it answers the agent's permission prompts here, as in a
  // run on this machine.
  const prompting = new AbortController();
  const prompt = mayPrompt(process.stdin, standardError, how)
    ? promptApprovals({
        tasks: fleet,
        id,
        input: process.stdin,
        say: (text) => {
          standardError.write(text + "\n");
        },
        signal: prompting.signal,
      }).catch(() => undefined)
    : undefined;
  try {
    for await (const event of fleet.watch(id, { follow: true })) {
      if (chatty) standardError.write(eventLine(event) + "\n");
    }
  } finally {
    prompting.abort();
    await prompt;
  }
  const details = await fleet.get(id);
  const view = detailsView(details);
  if (how.json === true) printJson(view);
  else {
    const short = await shownId(fleet, id);
    standardOut.write(endLine(view) + "\n");
    if (view.state === "failed") {
      for (const line of await failureTail(fleet, id, short)) standardOut.write(line + "\n");
    }
    for (const step of nextSteps(view, short)) standardOut.write(`  ${step}\n`);
  }
  process.exitCode = exitForState(view.state, details.terminal?.stoppedBy);
}
