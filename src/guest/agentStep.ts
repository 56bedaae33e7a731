// Step 4 of the runner: the agent, from its adapter's launch to its outcome in the result.
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { adapterFor } from "../agents/index.js";
import { RESULT_FILES, type ResultsFile } from "../protocol/index.js";
import { agentEnvironment, RUN_MARKER_VAR } from "./agentEnvironment.js";
import { agentResultOf } from "./agentResult.js";
import { INITIAL_PID_NAMESPACE, ProcessTable } from "./processTable.js";
import type { Share } from "./readShare.js";
import type { ReapScope } from "./reapStragglers.js";
import type { ResultDraft } from "./resultDraft.js";
import { superviseAgent } from "./superviseAgent.js";

export interface AgentStepInput {
  readonly share: Share;
  readonly workspace: string;
  readonly scratch: string;
  readonly metadataUrl: string;
  /** The proxy and relay variables for the agent (see egressForwarding.ts). */
  readonly egressEnv: Readonly<Record<string, string>>;
  /** The runner's own environment. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly agentEnv: readonly string[];
  readonly ownPidNamespace: boolean;
  readonly killGraceMs: number;
  readonly stop: AbortSignal;
  readonly progress: (line: string) => void;
}

/** Which processes count as the agent's once it has exited. */
function reapScopeFor(
  ownPidNamespace: boolean,
  marker: string,
  warn: (text: string) => void,
): (pgid: number) => ReapScope {
  if (ownPidNamespace) {
    if (new ProcessTable().pidNamespace() !== INITIAL_PID_NAMESPACE) {
      return () => ({ kind: "namespace" });
    }
    // Killing every process of the host's namespace would take the machine down with the task.
    warn(
      "the runner was told it has a PID namespace of its own, but it runs in the host's; " +
        "it stopped only the agent's process group and the processes that carry its marker",
    );
  }
  return (pgid) => ({ kind: "agent", pgid, marker: `${RUN_MARKER_VAR}=${marker}` });
}

/**
 * Runs the agent and writes its outcome into the draft and the files to send. Resolves with
 * whether the runner was stopped while the agent ran; rejects when the agent could not start.
 */
export async function runAgentStep(
  input: AgentStepInput,
  draft: ResultDraft,
  files: ResultsFile[],
): Promise<{ stopped: boolean }> {
  const { settings } = input.share;
  const launch = adapterFor(settings.agent).launch({ settings, prompt: input.share.prompt });
  const marker = randomBytes(16).toString("hex");
  const tmpdir = join(input.scratch, "tmp");
  await mkdir(tmpdir, { recursive: true, mode: 0o700 });
  const reapScope = reapScopeFor(input.ownPidNamespace, marker, (text) =>
    draft.warnings.push(text),
  );
  const transcriptPath = join(input.scratch, RESULT_FILES.transcript);
  const logPath = join(input.scratch, RESULT_FILES.log);

  input.progress(`starting the ${settings.agent} agent`);
  const outcome = await superviseAgent({
    argv: launch.argv,
    env: agentEnvironment({
      runner: input.env,
      pass: input.agentEnv,
      adapter: launch.env,
      settings,
      egress: input.egressEnv,
      metadataUrl: input.metadataUrl,
      tmpdir,
      marker,
      fallbackHome: homedir(),
    }),
    stdin: launch.stdin,
    cwd: input.workspace,
    timeoutMs: (settings.timeoutSeconds ?? 0) * 1000,
    killGraceMs: input.killGraceMs,
    transcriptPath,
    logPath,
    stop: input.stop,
    reapScope,
    progress: input.progress,
  });
  files.push({ name: RESULT_FILES.transcript, path: transcriptPath });
  files.push({ name: RESULT_FILES.log, path: logPath });
  draft.agentExitCode = outcome.exitCode;
  draft.timedOut = outcome.timedOut;
  const agentResult = agentResultOf(outcome.lastLine);
  if (agentResult !== undefined) draft.agentResult = agentResult;
  if (outcome.transcript.truncated) draft.truncated.push(RESULT_FILES.transcript);
  if (outcome.log.truncated) draft.truncated.push(RESULT_FILES.log);
  draft.warnings.push(...outcome.warnings);
  return { stopped: outcome.stopped };
}
