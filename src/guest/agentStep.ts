// Step 4 of the runner, the agent: open the channel to the host, prepare the agent (its home,
// its task, what its runs share), run it (and, for an agent that takes each further message as a
// new run, resume it once per message), hand back what its runs wrote, and record how it ended.
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { adapterFor, type AgentTask } from "../agents/index.js";
import { errorMessage, NO_TRACE, randomHex } from "../lang/index.js";
import { CHANNEL_SOCKET, type ResultsFile } from "../protocol/index.js";
import { RUN_MARKER_VAR } from "./agentEnvironment.js";
import { AgentOutput } from "./agentOutput.js";
import { resumeRuns, runOnce, type RunEnd, type Runs } from "./agentRuns.js";
import type { AgentStepInput } from "./agentStepInput.js";
import type { WorkspaceCheckpoint } from "./checkpointGit.js";
import { placeSession, startCheckpoints, type Checkpoints } from "./agentSession.js";
import { HostChannel } from "./hostChannel.js";
import { LiveAgent } from "./liveAgent.js";
import { permissionPromptTool, permissionToolPath } from "./permissionPrompt.js";
import { workspaceLayout } from "./boundWorkspaces.js";
import { INITIAL_PID_NAMESPACE, ProcessTable } from "./processTable.js";
import type { ReapScope } from "./reapStragglers.js";
import type { ResultDraft } from "./resultDraft.js";

export type { AgentStepInput } from "./agentStepInput.js";

/**
 * The agent's own home in the scratch directory: its configuration and sessions, kept across
 * the task's runs and never in the workspace, so none of it can end up in a commit.
 */
export const AGENT_HOME_DIR = "agent-home";

/** The channel to the host, and the path of its socket. */
type Host = { readonly channel: HostChannel; readonly socket: string };

/** How the agent step ended, and what of it still runs once the agent is gone. */
export interface AgentStepEnd {
  /** The runner was stopped while the agent ran. */
  readonly stopped: boolean;
  /**
   * The last checkpoint, then the agent's outcome recorded in the draft and the channel closed.
   * Every process of the agent is gone by now, and the checkpoint reads the workspace through a
   * repository and an index of the runner's own, so the runner finishes the workspace's git
   * while it runs. It must be awaited before the draft is read or the results are sent.
   */
  readonly closing: Promise<void>;
}

/**
 * Runs the agent and writes its outcome into the draft (once `closing` has settled) and the files
 * to send. Rejects when the agent could not start.
 */
export async function runAgentStep(
  input: AgentStepInput,
  draft: ResultDraft,
  files: ResultsFile[],
): Promise<AgentStepEnd> {
  const warn = (text: string): void => {
    draft.warnings.push(text);
  };
  const trace = input.trace ?? NO_TRACE;
  const host = await trace.around("agent: open the channel", openChannel(input, warn));
  const adapter = adapterFor(input.share.settings.agent);
  const home = join(input.scratch, AGENT_HOME_DIR);
  // The session the checkpoints carry is the one the agent last named, once it runs.
  let live: LiveAgent | undefined;
  const checkpoints = await startCheckpoints(
    input,
    host?.socket,
    adapter,
    () => ({ home, id: live?.sessionId }),
    warn,
  );
  // Only the closing below may wait for finishing: the runner finishes once this step returns.
  const lastCheckpoint = (finished?: Promise<WorkspaceCheckpoint | undefined>): Promise<void> =>
    trace.around("agent: last checkpoint", checkpoints?.finish(finished) ?? Promise.resolve());
  let end: RunEnd;
  try {
    const { runs, task } = await trace.around(
      "agent: prepare",
      prepareAgent(input, host, warn, checkpoints),
    );
    live = runs.live;
    try {
      end = await runAgent(runs, task, host?.channel, draft, files);
    } catch (error) {
      await lastCheckpoint();
      throw error;
    }
  } catch (error) {
    host?.channel.close();
    throw error;
  }
  const closing = (async (): Promise<void> => {
    try {
      await lastCheckpoint(input.checkpoints?.finished);
      recordEnd(draft, end, host?.channel);
    } finally {
      host?.channel.close();
    }
  })();
  return { stopped: end.stopped, closing };
}

/**
 * The channel to the host, when the host gave one (control.sock in the sockets directory).
 * Without it the agent runs as it always could: no live events, no messages, no approvals.
 */
async function openChannel(
  input: AgentStepInput,
  warn: (text: string) => void,
): Promise<Host | undefined> {
  if (input.sockets === undefined) return undefined;
  const socket = join(input.sockets, CHANNEL_SOCKET);
  if (!existsSync(socket)) return undefined;
  try {
    const channel = await HostChannel.open(socket, { requestMs: input.channelTimeoutMs });
    input.progress("connected to the host's channel");
    return { channel, socket };
  } catch (error) {
    warn(errorMessage(error));
    return undefined;
  }
}

/** The agent's home and temporary directory, its task as its adapter takes it, and its runs. */
async function prepareAgent(
  input: AgentStepInput,
  host: Host | undefined,
  warn: (text: string) => void,
  checkpoints: Checkpoints | undefined,
): Promise<{ runs: Runs; task: AgentTask }> {
  const { settings, prompt } = input.share;
  const adapter = adapterFor(settings.agent);
  const home = join(input.scratch, AGENT_HOME_DIR);
  const tmpdir = join(input.scratch, "tmp");
  await mkdir(home, { recursive: true, mode: 0o700 });
  await mkdir(tmpdir, { recursive: true, mode: 0o700 });
  // approve "prompt" without a channel: the adapter refuses to launch, and that is the result.
  const socket = host?.socket;
  const promptTool =
    settings.approve === "prompt" && socket !== undefined
      ? permissionPromptTool({ node: process.execPath, script: permissionToolPath(), socket })
      : undefined;
  const resume = await placeSession(input, adapter, home);
  const task: AgentTask = {
    settings,
    prompt,
    home,
    ...(resume === undefined ? {} : { resume }),
    permissionPromptTool: promptTool,
    apiBaseUrl: input.relayUrl,
    ...boundDirs(input),
    ...(input.share.skills === undefined ? {} : { skills: input.share.skills }),
  };
  const marker = randomHex(16);
  const runs: Runs = {
    input,
    adapter,
    live: new LiveAgent({
      adapter,
      channel: host?.channel,
      progress: input.progress,
      warn,
      files: input.messageFiles,
      ...(checkpoints === undefined
        ? {}
        : { onBoundary: checkpoints.boundary, onEnding: checkpoints.ending }),
    }),
    output: new AgentOutput(input.scratch),
    home,
    tmpdir,
    marker,
    reapScope: reapScopeFor(input.ownPidNamespace, marker, warn),
    ...(checkpoints === undefined ? {} : { settle: checkpoints.settle }),
    warn,
    timeoutMs: (settings.timeoutSeconds ?? 0) * 1000,
    startedAt: performance.now(),
  };
  return { runs, task };
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
 * Runs the agent, resumed once per message for an agent that takes them as new runs, and hands
 * back what the runs wrote, even when a further run could not start.
 */
async function runAgent(
  runs: Runs,
  task: AgentTask,
  channel: HostChannel | undefined,
  draft: ResultDraft,
  files: ResultsFile[],
): Promise<RunEnd> {
  runs.input.progress(`starting the ${task.settings.agent} agent`);
  try {
    const first = await runOnce(runs, task, runs.timeoutMs);
    if (runs.adapter.resumable !== true || channel === undefined) return first;
    return await resumeRuns(runs, task, channel, first);
  } finally {
    files.push(...runs.output.files());
    await (runs.input.trace ?? NO_TRACE).around("agent: finish live output", runs.live.finish());
    draft.truncated.push(...runs.output.truncated());
  }
}

/** Records how the agent's last run ended in the draft. */
function recordEnd(draft: ResultDraft, end: RunEnd, channel: HostChannel | undefined): void {
  draft.agentExitCode = end.exitCode;
  draft.timedOut = end.timedOut;
  if (end.agentResult !== undefined) draft.agentResult = end.agentResult;
  // The answer as the adapter read it: Codex's and Gemini's last lines do not carry it.
  const answer = end.outcome?.result;
  if (answer?.ok === true && answer.message !== undefined && answer.message.trim() !== "") {
    draft.answer = answer.message;
  }
  if (channel?.broken !== undefined) {
    draft.warnings.push(
      `the channel to the host broke while the agent ran: ${channel.broken.message}`,
    );
  }
}

/** The bound workspaces' directories, for an agent that must be told where else it may work. */
function boundDirs(input: AgentStepInput): { addDirs?: string[] } {
  const { bound } = workspaceLayout(input.workspace, input.share.workspaces);
  return bound.length === 0 ? {} : { addDirs: bound.map((w) => w.path) };
}
