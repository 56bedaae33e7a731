// The `codex` adapter for one task: Codex CLI's launch, stream, and outcome, with the ledger
// that adds up the task's runs. Each further message is a new `codex exec resume` run.
import { join } from "node:path";
import { definedFields } from "../../lang/index.js";
import type { AgentAdapter, AgentLaunch, AgentTask } from "../adapter.js";
import { resumingTaskOf } from "../resumingTask.js";
import { CODEX_HOME_DIR } from "./home.js";
import { CODEX_KEY_VARIABLE, codexLaunch, type CodexTask } from "./launch.js";
import { CodexLedger } from "./ledger.js";
import { CODEX_SKILLS_DIR, codexMcpToml } from "./mcp.js";
import { codexOutcome } from "./outcome.js";
import { codexSessions } from "./session.js";
import { codexStreamReader } from "./stream.js";

export { CODEX_HOME_DIR };

/**
 * A config.toml that says where the options are. Codex refuses a CODEX_HOME that does not
 * exist, and writing a file there is how the runner makes it.
 */
const CODEX_CONFIG = "# Written by warden: the options of each run are on its command line.\n";

/** The Codex task a warden task describes. Pure. */
export function codexTaskOf(task: AgentTask): CodexTask {
  const { apiBaseUrl } = task;
  return definedFields({
    ...resumingTaskOf(task),
    api:
      apiBaseUrl === undefined
        ? undefined
        : { baseUrl: apiBaseUrl, keyVariable: CODEX_KEY_VARIABLE },
  });
}

/** A new Codex adapter, for one task. */
export function createCodexAgent(): AgentAdapter {
  const ledger = new CodexLedger();
  return {
    name: "codex",
    resumable: true,
    sessions: codexSessions,
    launch(task: AgentTask): AgentLaunch {
      const launch = codexLaunch(codexTaskOf(task));
      if (task.home === undefined) return launch;
      const codexHome = join(task.home, CODEX_HOME_DIR);
      return {
        ...launch,
        env: { ...launch.env, CODEX_HOME: codexHome },
        files: [
          {
            path: join(codexHome, "config.toml"),
            text: CODEX_CONFIG + codexMcpToml(task.settings.mcpServers),
          },
        ],
        ...(task.skills === undefined ? {} : { skillsDir: join(codexHome, CODEX_SKILLS_DIR) }),
      };
    },
    readStream: () => codexStreamReader(ledger),
    outcome: codexOutcome,
  };
}
