// `warden doctor`: whether this machine can run tasks, and what to fix if not.
import type { Command } from "commander";
import { doctorReport } from "../host/index.js";
import { cleanLine } from "../protocol/index.js";
import { EXIT } from "./exitCodes.js";
import { openTasks } from "./context.js";
import { printJson } from "./taskView.js";

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .summary("check that this machine can run tasks")
    .description(
      "Check Node.js, git, the built runner, every sandbox backend (which work here and why the " +
        "others do not) and the agents. Exits 1 when the default sandbox cannot run.",
    )
    .option("--json", "print the report as JSON")
    .action(async (flags: { json?: boolean }, cmd: Command) => {
      const [report, tasks] = await Promise.all([doctorReport(), openTasks(cmd)]);
      process.exitCode = report.ready ? EXIT.ok : EXIT.failed;
      if (flags.json === true) {
        printJson({ ...report, dataDir: tasks.dataDir });
        return;
      }
      const out = (line: string): void => {
        process.stdout.write(cleanLine(line) + "\n");
      };
      for (const check of report.checks) {
        out(
          check.ok
            ? `ok    ${check.name}: ${check.detail}`
            : `FAIL  ${check.name}: ${check.why}; fix: ${check.fix}`,
        );
      }
      for (const backend of report.backends) {
        const what = `sandbox ${backend.name}${backend.isolated ? "" : " (NOT isolated)"}`;
        out(
          backend.ok
            ? `ok    ${what}: ${backend.detail}`
            : `FAIL  ${what}: ${backend.why}; fix: ${backend.fix}`,
        );
      }
      for (const agent of report.agents) {
        out(`${agent.usable ? "ok  " : "FAIL"}  agent ${agent.name}: ${agent.detail}`);
      }
      out(`data directory: ${tasks.dataDir}`);
      out(report.ready ? "ready to run tasks" : "not ready: fix what FAIL says above");
    });
}
