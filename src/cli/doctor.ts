// `warden doctor`: whether this machine can run tasks, and what to fix if not.
import type { Command } from "commander";
import { apiChecks, apiKeyVariablesText, doctorReport, type ApiCheck } from "../host/index.js";
import { cleanLine } from "../protocol/index.js";
import { EXIT } from "./exitCodes.js";
import { openMachineTasks } from "./context.js";
import { printJson } from "./taskView.js";
import { standardOut } from "./standardStreams.js";

/** The lines of `--check-api`: one per API with a key, or one saying that no key is set. */
function apiLines(apis: readonly ApiCheck[]): string[] {
  if (apis.length === 0) {
    return [
      `FAIL  api: no API key is set here, so none was tried; fix: set ${apiKeyVariablesText()}`,
    ];
  }
  return apis.map((check) => {
    const what = `api ${check.api} at ${check.upstream}`;
    return check.verdict === "ok"
      ? `ok    ${what}: ${check.detail}`
      : `FAIL  ${what}: ${check.detail}${check.hint === undefined ? "" : `; fix: ${check.hint}`}`;
  });
}

export function registerDoctor(program: Command): void {
  program
    .command("doctor")
    .summary("check that this machine can run tasks")
    .description(
      "Check Node.js, git, the built runner, every sandbox backend (which work here and why the " +
        "others do not) and the agents. Exits 1 when the default sandbox cannot run. With " +
        "--check-api, also makes one free request (the model listing) to each API whose key is " +
        "set here, and exits 1 unless every one works: a refused key, an upstream that does not " +
        "answer, or no key at all.",
    )
    .option("--json", "print the report as JSON")
    .option(
      "--check-api",
      "try each API key that is set with one free request to its upstream (ANTHROPIC_BASE_URL...)",
    )
    .action(async (flags: { json?: boolean; checkApi?: boolean }, cmd: Command) => {
      const [report, tasks, apis] = await Promise.all([
        doctorReport(),
        openMachineTasks(cmd),
        flags.checkApi === true ? apiChecks() : undefined,
      ]);
      const apisOk =
        apis === undefined || (apis.length > 0 && apis.every((a) => a.verdict === "ok"));
      const ready = report.ready && apisOk;
      process.exitCode = ready ? EXIT.ok : EXIT.failed;
      if (flags.json === true) {
        printJson({ ...report, ready, ...(apis && { apis }), dataDir: tasks.dataDir });
        return;
      }
      const out = (line: string): void => {
        standardOut.write(cleanLine(line) + "\n");
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
      if (apis !== undefined) for (const line of apiLines(apis)) out(line);
      out(`data directory: ${tasks.dataDir}`);
      out(ready ? "ready to run tasks" : "not ready: fix what FAIL says above");
    });
}
