// `warden fetch`: the task's verified changes as a branch of its repository.
import type { Command } from "commander";
import { fetchTask } from "../host/index.js";
import { withStore } from "./context.js";
import { noFleetWorkspace } from "./diff.js";
import { printJson } from "./taskView.js";
import { standardOut } from "./standardStreams.js";

export function registerFetch(program: Command): void {
  program
    .command("fetch")
    .summary("fetch a task's changes as a branch")
    .description(
      "Import a finished task's verified changes into its repository as one branch " +
        "(warden/<id> unless --branch), once every object of it passes git's strict checks. " +
        "Nothing else of the repository is " +
        "touched: not the checkout, the index, nor any other ref. An existing branch is only " +
        "overwritten with --force. A fleet's task (--store) has its changes downloaded and " +
        "verified here, against the repository, before they touch it.",
    )
    .argument("<id>", "the task's id or a unique prefix of it")
    .option("--branch <name>", "the branch to create (default warden/<id>)")
    .option("--force", "overwrite the branch if it exists")
    .option("--json", "print the outcome as JSON")
    .option(
      "--workspace <name>",
      "the changes of the workspace bound as NAME, into its own repository",
    )
    .option("--repo <path>", "fetch into this repository instead (it must hold the task's base)")
    .action(
      async (
        ref: string,
        flags: {
          branch?: string;
          force?: boolean;
          json?: boolean;
          workspace?: string;
          repo?: string;
        },
        cmd: Command,
      ) => {
        const fetched = await withStore(cmd, async (open) => {
          if (open.kind === "local") {
            return fetchTask(open.tasks, ref, {
              branch: flags.branch,
              force: flags.force === true,
              ...(flags.workspace === undefined ? {} : { workspace: flags.workspace }),
              ...(flags.repo === undefined ? {} : { repo: flags.repo }),
            });
          }
          if (flags.workspace !== undefined) throw noFleetWorkspace();
          const { fetchFleetTask } = await import("../fleet/index.js");
          return fetchFleetTask(open.fleet, ref, {
            force: flags.force === true,
            ...(flags.branch === undefined ? {} : { branch: flags.branch }),
            ...(flags.repo === undefined ? {} : { repo: flags.repo }),
          });
        });
        if (flags.json === true) printJson(fetched);
        else
          standardOut.write(`fetched ${fetched.branch} at ${fetched.head} into ${fetched.repo}\n`);
      },
    );
}
