// Step 4 of the runner: the agent, from its adapter's launch to its outcome in the result.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { adapterFor, type AgentAdapter, type AgentOutcome } from "../agents/index.js";
import { CHANNEL_SOCKET, RESULT_FILES, type ResultsFile } from "../protocol/index.js";
import { agentEnvironment, RUN_MARKER_VAR } from "./agentEnvironment.js";
import { agentResultObject, agentResultOf } from "./agentResult.js";
import { HostChannel } from "./hostChannel.js";
import { LiveAgent } from "./liveAgent.js";
import { permissionPromptTool, permissionToolPath } from "./permissionPrompt.js";
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
  /** The directory of the host's sockets; the channel is control.sock there, when present. */
  readonly sockets: string | undefined;
  readonly channelTimeoutMs: number;
  readonly stop: AbortSignal;
  readonly progress: (line: string) => void;
}

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

/**
 * How the run ended, by the adapter. Its agentResult replaces the last line only when it fits
 * where the last line would (a made-up one always does); an adapter that fails to judge leaves
 * the last line as it is.
 */
function judge(
  adapter: AgentAdapter,
  lastLine: Record<string, unknown> | undefined,
  exitCode: number,
  warn: (text: string) => void,
): { outcome: AgentOutcome | undefined; agentResult: Record<string, unknown> | undefined } {
  let outcome: AgentOutcome;
  try {
    outcome = adapter.outcome({ lastLine, exitCode });
  } catch (error) {
    warn(`could not judge how the agent's run ended: ${String(error)}`);
    return { outcome: undefined, agentResult: lastLine };
  }
  if (outcome.agentResult === undefined) return { outcome, agentResult: undefined };
  const agentResult = agentResultObject(outcome.agentResult);
  if (agentResult === undefined) {
    warn("the agent's account of its run was too large for the result and was left out");
  }
  return { outcome, agentResult };
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
  // approve "prompt" without a channel: the adapter refuses to launch, and that is the result.
  const promptTool =
    settings.approve === "prompt" && socket !== undefined
      ? permissionPromptTool({ node: process.execPath, script: permissionToolPath(), socket })
      : undefined;
  const launch = adapter.launch(
    promptTool === undefined
      ? { settings, prompt }
      : { settings, prompt, permissionPromptTool: promptTool },
  );
  const live =
    channel === undefined
      ? undefined
      : new LiveAgent({ adapter, channel, progress: input.progress, warn });
  const marker = randomBytes(16).toString("hex");
  const tmpdir = join(input.scratch, "tmp");
  await mkdir(tmpdir, { recursive: true, mode: 0o700 });
  const reapScope = reapScopeFor(input.ownPidNamespace, marker, warn);
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
    ...(live === undefined ? {} : { io: live }),
  });
  files.push({ name: RESULT_FILES.transcript, path: transcriptPath });
  files.push({ name: RESULT_FILES.log, path: logPath });
  draft.agentExitCode = outcome.exitCode;
  draft.timedOut = outcome.timedOut;
  const judged = judge(adapter, agentResultOf(outcome.lastLine), outcome.exitCode, warn);
  if (judged.agentResult !== undefined) draft.agentResult = judged.agentResult;
  await live?.finish(judged.outcome);
  if (channel?.broken !== undefined) {
    warn(`the channel to the host broke while the agent ran: ${channel.broken.message}`);
  }
  if (outcome.transcript.truncated) draft.truncated.push(RESULT_FILES.transcript);
  if (outcome.log.truncated) draft.truncated.push(RESULT_FILES.log);
  draft.warnings.push(...outcome.warnings);
  return { stopped: outcome.stopped };
}
