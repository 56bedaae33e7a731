// The agent's runs: one run from its launch to its judged outcome, and, for an agent that takes
// each further message as a new run (Codex, Gemini), the series of resumed runs after it.
import { homedir } from "node:os";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type {
  AgentAdapter,
  AgentExit,
  AgentLaunch,
  AgentOutcome,
  AgentTask,
} from "../agents/index.js";
import { CHANNEL_LIMITS, LIMITS, cutText } from "../protocol/index.js";
import { agentEnvironment } from "./agentEnvironment.js";
import { agentResultObject, agentResultOf } from "./agentResult.js";
import type { AgentStepInput } from "./agentStepInput.js";
import { AgentStartError } from "./errors.js";
import type { HostChannel } from "./hostChannel.js";
import type { LiveAgent } from "./liveAgent.js";
import type { ReapScope } from "./reapStragglers.js";
import { superviseAgent } from "./superviseAgent.js";

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

/** What one run of the agent came to. */
export interface RunEnd {
  readonly exitCode: number;
  readonly timedOut: boolean;
  readonly stopped: boolean;
  readonly outcome: AgentOutcome | undefined;
  readonly agentResult: Record<string, unknown> | undefined;
}

/** Everything a run needs that stays the same over the task's runs. */
export interface Runs {
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
export async function runOnce(runs: Runs, task: AgentTask, timeoutMs: number): Promise<RunEnd> {
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
export async function resumeRuns(
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
    if (timeoutMs > 0 && timeLeft(runs, timeoutMs) <= 0) return last;
    let next: { n: number; body: string } | undefined;
    try {
      next = (await channel.request({ op: "inbox.next" })).message;
    } catch (error) {
      runs.warn(`could not ask the host for messages: ${describe(error)}`);
      return last;
    }
    if (next === undefined) return last;
    // The host's answer took time too: a message that no time is left for is named, not run.
    const left = timeLeft(runs, timeoutMs);
    if (timeoutMs > 0 && left <= 0) {
      runs.warn(
        `message ${next.n} was taken from the inbox as the agent's time ran out, and not delivered`,
      );
      return last;
    }
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
