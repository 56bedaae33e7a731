// Step 4 of the runner: the agent, from its adapter's launch to its outcome in the result.
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import {
  adapterFor,
  type AgentAdapter,
  type AgentExit,
  type AgentLaunch,
  type AgentOutcome,
  type AgentTask,
} from "../agents/index.js";
import {
  CHANNEL_LIMITS,
  CHANNEL_SOCKET,
  LIMITS,
  RESULT_FILES,
  cutText,
  type ResultsFile,
} from "../protocol/index.js";
import { agentEnvironment, RUN_MARKER_VAR } from "./agentEnvironment.js";
import { agentResultObject, agentResultOf } from "./agentResult.js";
import { AgentStartError } from "./errors.js";
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
  /** The relay forwarder's base URL, when the host gave a relay. */
  readonly relayUrl?: string;
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

/**
 * How a run ended, by the adapter. Its agentResult replaces the last line only when it fits
 * where the last line would (a made-up one always does); an adapter that fails to judge leaves
 * the last line as it is.
 */
function judge(
  adapter: AgentAdapter,
  exit: AgentExit,
  warn: (text: string) => void,
): { outcome: AgentOutcome | undefined; agentResult: Record<string, unknown> | undefined } {
  let outcome: AgentOutcome;
  try {
    outcome = adapter.outcome(exit);
  } catch (error) {
    warn(`could not judge how the agent's run ended: ${String(error)}`);
    return { outcome: undefined, agentResult: exit.lastLine };
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

/** What one run of the agent came to. */
interface RunEnd {
  readonly exitCode: number;
  readonly timedOut: boolean;
  readonly stopped: boolean;
  readonly outcome: AgentOutcome | undefined;
  readonly agentResult: Record<string, unknown> | undefined;
}

/** Everything a run needs that stays the same over the task's runs. */
interface Runs {
  readonly input: AgentStepInput;
  readonly adapter: AgentAdapter;
  readonly live: LiveAgent;
  readonly home: string;
  readonly tmpdir: string;
  readonly marker: string;
  readonly reapScope: (pgid: number) => ReapScope;
  readonly transcriptPath: string;
  readonly logPath: string;
  readonly warn: (text: string) => void;
  /** When the first run started, for the timeout, which bounds all the runs together. */
  readonly startedAt: number;
  /** Bytes the earlier runs left in the transcript and the log; undefined before the first. */
  used: { transcriptBytes: number; logBytes: number } | undefined;
  transcriptCut: boolean;
  logCut: boolean;
}

/** Writes the configuration files a launch names, each inside the task's agent home. */
async function writeAgentFiles(launch: AgentLaunch, home: string): Promise<void> {
  for (const file of launch.files ?? []) {
    if (!file.path.startsWith(`${home}/`)) {
      throw new AgentStartError(`the agent's file ${file.path} is outside its home ${home}`);
    }
    await mkdir(dirname(file.path), { recursive: true, mode: 0o700 });
    await writeFile(file.path, file.text, { mode: 0o600 });
  }
}

/** One run of the agent, from its launch to its judged outcome. */
async function runOnce(runs: Runs, task: AgentTask, timeoutMs: number): Promise<RunEnd> {
  const { input, adapter, live } = runs;
  const { settings } = input.share;
  const launch = adapter.launch(task);
  await writeAgentFiles(launch, runs.home);
  const used = runs.used;
  const outcome = await superviseAgent({
    argv: launch.argv,
    env: agentEnvironment({
      runner: input.env,
      pass: input.agentEnv,
      adapter: launch.env,
      settings,
      egress: input.egressEnv,
      metadataUrl: input.metadataUrl,
      tmpdir: runs.tmpdir,
      marker: runs.marker,
      fallbackHome: homedir(),
    }),
    stdin: launch.stdin,
    cwd: input.workspace,
    timeoutMs,
    killGraceMs: input.killGraceMs,
    transcriptPath: runs.transcriptPath,
    logPath: runs.logPath,
    ...(used === undefined
      ? {}
      : {
          append: {
            transcriptBytes: Math.max(0, LIMITS.transcriptBytes - used.transcriptBytes),
            logBytes: Math.max(0, LIMITS.logBytes - used.logBytes),
          },
        }),
    stop: input.stop,
    reapScope: runs.reapScope,
    progress: input.progress,
    io: live.io(),
  });
  runs.used = {
    transcriptBytes: (used?.transcriptBytes ?? 0) + outcome.transcript.kept,
    logBytes: (used?.logBytes ?? 0) + outcome.log.kept,
  };
  runs.transcriptCut ||= outcome.transcript.truncated;
  runs.logCut ||= outcome.log.truncated;
  for (const warning of outcome.warnings) runs.warn(warning);
  const lastResult = live.endOutput();
  const judged = judge(
    adapter,
    {
      lastLine: agentResultOf(outcome.lastLine),
      exitCode: outcome.exitCode,
      ...(lastResult === undefined ? {} : { lastResult }),
    },
    runs.warn,
  );
  live.judged(judged.outcome);
  return {
    exitCode: outcome.exitCode,
    timedOut: outcome.timedOut,
    stopped: outcome.stopped,
    outcome: judged.outcome,
    agentResult: judged.agentResult,
  };
}

/** The time a further run may have: what is left of the task's timeout (0: none). */
function timeLeft(runs: Runs, timeoutMs: number): number {
  if (timeoutMs === 0) return 0;
  return timeoutMs - (performance.now() - runs.startedAt);
}

/**
 * For an agent that takes each further message as a new run (Codex, Gemini): after a run that
 * ended ok, asks the host for the oldest pending message, starts a run that resumes the session
 * with it, and hands that run's answer back as the message's reply; until nothing is pending,
 * a run fails, the time is up or the runner is told to stop.
 */
async function resumeRuns(
  runs: Runs,
  task: AgentTask,
  channel: HostChannel,
  first: RunEnd,
  timeoutMs: number,
): Promise<RunEnd> {
  const { input, live } = runs;
  let last = first;
  for (;;) {
    if (last.stopped || last.timedOut || input.stop.aborted) return last;
    if (last.outcome?.result.ok !== true) {
      input.progress("the agent's last run failed: no further messages are taken");
      return last;
    }
    const sessionId = live.sessionId;
    if (sessionId === undefined) {
      runs.warn("the agent named no session to resume, so no further message can reach it");
      return last;
    }
    const left = timeLeft(runs, timeoutMs);
    if (timeoutMs > 0 && left <= 0) return last;
    let next: { n: number; body: string } | undefined;
    try {
      next = (await channel.request({ op: "inbox.next" })).message;
    } catch (error) {
      runs.warn(`could not ask the host for messages: ${describe(error)}`);
      return last;
    }
    if (next === undefined) return last;
    input.progress(`delivering message ${next.n} to the agent in a resumed run`);
    last = await runOnce(runs, { ...task, resume: { sessionId, message: next.body } }, left);
    const answer = last.outcome?.result;
    const reply = cutText(answer?.message ?? "", CHANNEL_LIMITS.replyBytes).text;
    const n = next.n;
    channel.request({ op: "inbox.reply", n, reply }).catch((error: unknown) => {
      runs.warn(`the reply to message ${n} did not reach the host: ${describe(error)}`);
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
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
  if (channel?.broken !== undefined) {
    warn(`the channel to the host broke while the agent ran: ${channel.broken.message}`);
  }
  return { stopped: end.stopped };
}
