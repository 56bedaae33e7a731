// The agent's runs. One run goes: launch (the adapter's command line and the files it names),
// supervise, count its output, judge how it ended. For an agent that takes each further message
// as a new run (Codex, Gemini), the runs after the first go: take the next message, run it in the
// resumed session, reply with the run's answer; until no message is pending or none may follow.
import { NO_TRACE } from "../lang/index.js";
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
import { errorMessage } from "../lang/index.js";
import { CHANNEL_LIMITS, cutText, type ChannelMessage } from "../protocol/index.js";
import { agentEnvironment } from "./agentEnvironment.js";
import type { AgentOutput } from "./agentOutput.js";
import { agentResultObject, agentResultOf } from "./agentResult.js";
import type { AgentStepInput } from "./agentStepInput.js";
import { AgentStartError } from "./errors.js";
import { placeSkills } from "./placeSkills.js";
import type { HostChannel } from "./hostChannel.js";
import type { LiveAgent } from "./liveAgent.js";
import { messageForAgent } from "./messageFiles.js";
import { namedReplyFiles, sendReplyFiles } from "./replyFiles.js";
import type { ReapScope } from "./reapStragglers.js";
import { superviseAgent, type SuperviseRequest } from "./superviseAgent.js";

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
  readonly output: AgentOutput;
  readonly home: string;
  readonly tmpdir: string;
  readonly marker: string;
  readonly reapScope: (pgid: number) => ReapScope;
  /** What the runner finishes of its own before the agent's leftovers are stopped. */
  readonly settle?: () => Promise<void>;
  readonly warn: (text: string) => void;
  /** The task's timeout, which bounds all its runs together (0: none). */
  readonly timeoutMs: number;
  /** When the first run started, for the timeout. */
  readonly startedAt: number;
}

/** One run of the agent, from its launch to its judged end. */
export async function runOnce(runs: Runs, task: AgentTask, timeoutMs: number): Promise<RunEnd> {
  const launch = await launchRun(runs, task);
  const run = await superviseAgent(superviseRequest(runs, launch, timeoutMs));
  runs.output.add(run.transcript, run.log);
  for (const warning of run.warnings) runs.warn(warning);
  return judge(runs, run);
}

/**
 * For an agent that takes each further message as a new run (Codex, Gemini): after the first
 * run, runs one resumed run per pending message and replies with its answer.
 */
export async function resumeRuns(
  runs: Runs,
  task: AgentTask,
  channel: HostChannel,
  first: RunEnd,
): Promise<RunEnd> {
  let last = first;
  for (;;) {
    const next = await takeMessage(runs, channel, last);
    if (next === undefined) return last;
    runs.input.progress(`delivering message ${next.n} to the agent in a resumed run`);
    const resume = { sessionId: next.sessionId, message: next.body };
    last = await runOnce(runs, { ...task, resume }, next.timeLeftMs);
    reply(runs, channel, next.n, last);
  }
}

/** The adapter's launch, with the configuration files it names written into the agent's home. */
async function launchRun(runs: Runs, task: AgentTask): Promise<AgentLaunch> {
  const launch = runs.adapter.launch(task);
  for (const file of launch.files ?? []) {
    if (!file.path.startsWith(`${runs.home}/`)) {
      throw new AgentStartError(`the agent's file ${file.path} is outside its home ${runs.home}`);
    }
    await mkdir(dirname(file.path), { recursive: true, mode: 0o700 });
    await writeFile(file.path, file.text, { mode: 0o600 });
  }
  if (launch.skillsDir !== undefined && task.skills !== undefined) {
    await placeSkills(task.skills, launch.skillsDir, runs.home);
  }
  return launch;
}

function superviseRequest(runs: Runs, launch: AgentLaunch, timeoutMs: number): SuperviseRequest {
  const { input } = runs;
  const append = runs.output.room();
  return {
    argv: launch.argv,
    env: agentEnvironment({
      runner: input.env,
      pass: input.agentEnv,
      adapter: launch.env,
      settings: input.share.settings,
      egress: input.egressEnv,
      metadataUrl: input.metadataUrl,
      tmpdir: runs.tmpdir,
      marker: runs.marker,
      fallbackHome: homedir(),
    }),
    stdin: launch.stdin,
    cwd: input.agentDir ?? input.workspace,
    timeoutMs,
    killGraceMs: input.killGraceMs,
    transcriptPath: runs.output.transcriptPath,
    logPath: runs.output.logPath,
    append,
    stop: input.stop,
    reapScope: runs.reapScope,
    ...(runs.settle === undefined ? {} : { settle: runs.settle }),
    progress: input.progress,
    trace: input.trace ?? NO_TRACE,
    io: runs.live.io(),
  };
}

/**
 * How a run ended, by the adapter. Its agentResult replaces the last line only when it fits
 * where the last line would (a synthesized one always does); an adapter that fails to judge leaves
 * the last line as it is.
 */
function judge(
  runs: Runs,
  run: { exitCode: number; timedOut: boolean; stopped: boolean; lastLine: Buffer | undefined },
): RunEnd {
  const lastResult = runs.live.endOutput();
  const exit: AgentExit = {
    lastLine: agentResultOf(run.lastLine),
    exitCode: run.exitCode,
    lastResult,
  };
  const { exitCode, timedOut, stopped } = run;
  let outcome: AgentOutcome;
  try {
    outcome = runs.adapter.outcome(exit);
  } catch (error) {
    runs.warn(`could not judge how the agent's run ended: ${String(error)}`);
    runs.live.judged(undefined);
    return { exitCode, timedOut, stopped, outcome: undefined, agentResult: exit.lastLine };
  }
  const agentResult =
    outcome.agentResult === undefined ? undefined : agentResultObject(outcome.agentResult);
  if (outcome.agentResult !== undefined && agentResult === undefined) {
    runs.warn("the agent's account of its run was too large for the result and was left out");
  }
  runs.live.judged(outcome);
  return { exitCode, timedOut, stopped, outcome, agentResult };
}

/**
 * The oldest pending message, with the session it resumes and the time its run may have; none
 * after a run that was stopped, timed out or failed, without a session to resume, when the time
 * is up, or when the host cannot be asked.
 */
async function takeMessage(
  runs: Runs,
  channel: HostChannel,
  last: RunEnd,
): Promise<{ n: number; body: string; sessionId: string; timeLeftMs: number } | undefined> {
  const { input, timeoutMs } = runs;
  if (last.stopped || last.timedOut || input.stop.aborted) return undefined;
  if (last.outcome?.result.ok !== true) {
    input.progress("the agent's last run failed: no further messages are taken");
    return undefined;
  }
  const sessionId = runs.live.sessionId;
  if (sessionId === undefined) {
    runs.warn("the agent named no session to resume, so no further message can reach it");
    return undefined;
  }
  if (timeoutMs > 0 && timeLeft(runs) <= 0) return undefined;
  let next: ChannelMessage | undefined;
  try {
    next = (await channel.request({ op: "inbox.next" })).message;
  } catch (error) {
    runs.warn(`could not ask the host for messages: ${errorMessage(error)}`);
    return undefined;
  }
  if (next === undefined) return undefined;
  // The host's answer took time too: a message that no time is left for is named, not run.
  const timeLeftMs = timeLeft(runs);
  if (timeoutMs > 0 && timeLeftMs <= 0) {
    runs.warn(
      `message ${next.n} was taken from the inbox as the agent's time ran out, and not delivered`,
    );
    return undefined;
  }
  const body = await messageForAgent(next, input.messageFiles);
  return { n: next.n, body, sessionId, timeLeftMs };
}

/**
 * Hands the run's answer back as the message's reply, without waiting for the host; the files
 * it names go first (the live agent's finish waits for them).
 */
function reply(runs: Runs, channel: HostChannel, n: number, end: RunEnd): void {
  const text = cutText(end.outcome?.result.message ?? "", CHANNEL_LIMITS.replyBytes).text;
  const send = (): Promise<void> =>
    channel.request({ op: "inbox.reply", n, reply: text }).then(
      () => undefined,
      (error: unknown) => {
        runs.warn(`the reply to message ${n} did not reach the host: ${errorMessage(error)}`);
      },
    );
  if (namedReplyFiles(text).length === 0) {
    runs.live.track(send());
    return;
  }
  runs.live.track(sendReplyFiles(channel, n, text, runs.input.messageFiles, runs.warn).then(send));
}

/** The time a further run may have: what is left of the task's timeout (0: none). */
function timeLeft(runs: Runs): number {
  if (runs.timeoutMs === 0) return 0;
  return runs.timeoutMs - (performance.now() - runs.startedAt);
}
