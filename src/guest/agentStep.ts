// Step 4 of the runner: the agent, from its adapter's launch to its outcome in the result.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { adapterFor, type AgentTask } from "../agents/index.js";
import { CHANNEL_SOCKET, RESULT_FILES, type ResultsFile } from "../protocol/index.js";
import { RUN_MARKER_VAR } from "./agentEnvironment.js";
import { resumeRuns, runOnce, type RunEnd, type Runs } from "./agentRuns.js";
import type { AgentStepInput } from "./agentStepInput.js";
import { HostChannel } from "./hostChannel.js";
import { LiveAgent } from "./liveAgent.js";
import { permissionPromptTool, permissionToolPath } from "./permissionPrompt.js";
import { INITIAL_PID_NAMESPACE, ProcessTable } from "./processTable.js";
import type { ReapScope } from "./reapStragglers.js";
import type { ResultDraft } from "./resultDraft.js";

export type { AgentStepInput } from "./agentStepInput.js";

/**
 * The agent's own home in the scratch directory: its configuration and sessions, kept across
 * the task's runs and never in the workspace, so none of it can end up in a commit.
 */
export const AGENT_HOME_DIR = "agent-home";

/**
 * The channel to the host, when the host gave one (control.sock in the sockets directory).
 * Without it the agent runs as it always could: no live events, no messages, no approvals.
 */
async function openChannel(
  input: AgentStepInput,
  warn: (text: string) => void,
): Promise<{ channel: HostChannel; socket: string } | undefined> {
  if (input.sockets === undefined) return undefined;
  const socket = join(input.sockets, CHANNEL_SOCKET);
  if (!existsSync(socket)) return undefined;
  try {
    const channel = await HostChannel.open(socket, { requestMs: input.channelTimeoutMs });
    input.progress("connected to the host's channel");
    return { channel, socket };
  } catch (error) {
    warn(error instanceof Error ? error.message : String(error));
    return undefined;
  }
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
  const warn = (text: string): void => {
    draft.warnings.push(text);
  };
  const host = await openChannel(input, warn);
  try {
    return await runAgent(input, draft, files, host?.channel, host?.socket);
  } finally {
    host?.channel.close();
  }
}

async function runAgent(
  input: AgentStepInput,
  draft: ResultDraft,
  files: ResultsFile[],
  channel: HostChannel | undefined,
  socket: string | undefined,
): Promise<{ stopped: boolean }> {
  const warn = (text: string): void => {
    draft.warnings.push(text);
  };
  const { settings, prompt } = input.share;
  const adapter = adapterFor(settings.agent);
  const home = join(input.scratch, AGENT_HOME_DIR);
  const tmpdir = join(input.scratch, "tmp");
  await mkdir(home, { recursive: true, mode: 0o700 });
  await mkdir(tmpdir, { recursive: true, mode: 0o700 });
  // approve "prompt" without a channel: the adapter refuses to launch, and that is the result.
  const promptTool =
    settings.approve === "prompt" && socket !== undefined
      ? permissionPromptTool({ node: process.execPath, script: permissionToolPath(), socket })
      : undefined;
  const task: AgentTask = {
    settings,
    prompt,
    home,
    ...(promptTool === undefined ? {} : { permissionPromptTool: promptTool }),
    ...(input.relayUrl === undefined ? {} : { apiBaseUrl: input.relayUrl }),
  };
  const marker = randomBytes(16).toString("hex");
  const runs: Runs = {
    input,
    adapter,
    live: new LiveAgent({ adapter, channel, progress: input.progress, warn }),
    home,
    tmpdir,
    marker,
    reapScope: reapScopeFor(input.ownPidNamespace, marker, warn),
    transcriptPath: join(input.scratch, RESULT_FILES.transcript),
    logPath: join(input.scratch, RESULT_FILES.log),
    warn,
    startedAt: performance.now(),
    used: undefined,
    transcriptCut: false,
    logCut: false,
  };
  const timeoutMs = (settings.timeoutSeconds ?? 0) * 1000;

  input.progress(`starting the ${settings.agent} agent`);
  let end: RunEnd;
  try {
    end = await runOnce(runs, task, timeoutMs);
    if (adapter.resumable === true && channel !== undefined) {
      end = await resumeRuns(runs, task, channel, end, timeoutMs);
    }
  } finally {
    // What the runs wrote goes back, even when a further run could not start.
    if (runs.used !== undefined) {
      files.push({ name: RESULT_FILES.transcript, path: runs.transcriptPath });
      files.push({ name: RESULT_FILES.log, path: runs.logPath });
    }
    await runs.live.finish();
    if (runs.transcriptCut) draft.truncated.push(RESULT_FILES.transcript);
    if (runs.logCut) draft.truncated.push(RESULT_FILES.log);
  }
  draft.agentExitCode = end.exitCode;
  draft.timedOut = end.timedOut;
  if (end.agentResult !== undefined) draft.agentResult = end.agentResult;
  // The answer as the adapter read it: Codex's and Gemini's last lines do not carry it.
  const answer = end.outcome?.result;
  if (answer?.ok === true && answer.message !== undefined && answer.message.trim() !== "") {
    draft.answer = answer.message;
  }
  if (channel?.broken !== undefined) {
    warn(`the channel to the host broke while the agent ran: ${channel.broken.message}`);
  }
  return { stopped: end.stopped };
}
