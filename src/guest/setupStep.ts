// The setup step, between the workspace and the agent: either the snapshot of a past setup that
// the host put into the share is restored, or setup runs (its commands, then its goal as a run of
// the agent of its own) with the variables the host gives it over the channel, and what it
// changed is sent back as a snapshot for later tasks. Nothing setup started outlives it, and its
// home and temporary directory are removed, so its variables never reach the agent.
import { createReadStream } from "node:fs";
import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage, randomHex } from "../lang/index.js";
import {
  CHANNEL_SOCKET,
  cleanLine,
  cutText,
  SETUP_LIMITS,
  SHARE_FILES,
  type SetupSettings,
} from "../protocol/index.js";
import { agentEnvironment } from "./agentEnvironment.js";
import { RUN_MARKER_VAR } from "./agentEnvironment.js";
import { runAgentStep, type AgentStepInput } from "./agentStep.js";
import { SetupFailedError, SetupTimeoutError, StoppedError } from "./errors.js";
import { HostChannel } from "./hostChannel.js";
import { GUEST_SETUP_LIMITS } from "./limits.js";
import { reapStragglers } from "./reapStragglers.js";
import { newDraft } from "./resultDraft.js";
import { runSetupCommands, type CommandsOutcome, type SetupStream } from "./setupCommands.js";
import { makeSnapshot, restoreSnapshot } from "./setupSnapshot.js";

export interface SetupStepInput extends AgentStepInput {
  /** The share's directory, where setup.tar is when the host restored from its cache. */
  readonly shareDir: string;
  /** The environment of the runner's git calls, for git status. */
  readonly gitEnv: Readonly<Record<string, string>>;
}

/** The setup's output, sent to the host in batches, with its last lines kept for an error. */
class SetupOutput {
  private readonly tail: string[] = [];
  private pending: { stream: SetupStream; text: string }[] = [];
  private sent = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly channel: HostChannel | undefined,
    private readonly progress: (line: string) => void,
  ) {}

  line(stream: SetupStream, text: string): void {
    this.tail.push(text);
    if (this.tail.length > GUEST_SETUP_LIMITS.tailLines) this.tail.shift();
    // With a channel the host shows each line itself; without one the guest log is all there is.
    if (this.channel === undefined) {
      this.progress(`setup: ${text}`);
      return;
    }
    if (this.sent + this.pending.length >= GUEST_SETUP_LIMITS.outputLines) {
      this.dropped++;
      return;
    }
    this.pending.push({ stream, text });
    if (this.pending.length >= SETUP_LIMITS.outputLinesPerRequest) this.flush();
    else
      this.timer ??= setTimeout(() => {
        this.flush();
      }, GUEST_SETUP_LIMITS.coalesceMs);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const lines = this.pending.splice(0, SETUP_LIMITS.outputLinesPerRequest);
    if (lines.length === 0 || this.channel === undefined) return;
    this.sent += lines.length;
    const channel = this.channel;
    this.sending = this.sending.then(() =>
      channel.request({ op: "setup.output", lines }).then(
        () => undefined,
        () => undefined,
      ),
    );
    if (this.pending.length > 0) this.flush();
  }

  /** Sends what is left; resolves once the host has it. */
  async finish(): Promise<void> {
    if (this.dropped > 0) {
      this.pending.push({ stream: "stderr", text: `[${this.dropped} more lines left out]` });
    }
    this.flush();
    await this.sending;
  }

  /** The last lines, as one bounded text for an error. */
  lastLines(): string {
    const text = this.tail.join(" | ");
    const cut = cutText(text, GUEST_SETUP_LIMITS.tailBytes);
    return cut.cut ? `... ${cut.text}` : cut.text;
  }
}

/** The channel to the host, when it gave one. */
async function openChannel(input: SetupStepInput): Promise<HostChannel | undefined> {
  if (input.sockets === undefined) return undefined;
  const socket = join(input.sockets, CHANNEL_SOCKET);
  if (!existsSync(socket)) return undefined;
  return HostChannel.open(socket, { requestMs: input.channelTimeoutMs });
}

function quoteCommand(command: string): string {
  return cutText(cleanLine(command), 200).text;
}

/** The error of a setup that did not succeed, with its last lines of output. */
function outcomeError(
  setup: SetupSettings,
  outcome: CommandsOutcome,
  output: SetupOutput,
): Error | undefined {
  if (outcome.kind === "ok") return undefined;
  const which = `setup command ${outcome.index + 1} of ${setup.commands.length} (${quoteCommand(setup.commands[outcome.index] ?? "")})`;
  const last = output.lastLines();
  const said = last === "" ? "" : `; its last lines: ${last}`;
  switch (outcome.kind) {
    case "failed":
      return new SetupFailedError(`${which} exited with code ${outcome.exitCode}${said}`);
    case "not_started":
      return new SetupFailedError(`${which} could not start: ${outcome.why}`);
    case "timed_out":
      return new SetupTimeoutError(
        `setup ran past its time limit of ${setup.timeoutSeconds} s in ${which} and was stopped${said}`,
      );
    case "stopped":
      return new StoppedError("the runner was stopped while setup ran");
  }
}

/** Runs the setup goal as a run of the task's agent of its own, with setup's variables. */
async function runGoal(
  input: SetupStepInput,
  setup: SetupSettings & { goal: string },
  setupEnv: Readonly<Record<string, string>>,
  endsAt: number,
  output: SetupOutput,
): Promise<Error | undefined> {
  const left = Math.max(1, Math.ceil((endsAt - performance.now()) / 1000));
  const scratch = join(input.scratch, "setup-goal");
  await mkdir(scratch, { recursive: true, mode: 0o700 });
  const { settings } = input.share;
  const draft = newDraft();
  output.line("stdout", `the setup goal runs the ${settings.agent} agent`);
  try {
    // No channel: the goal's run takes no messages meant for the task and asks no one.
    const { closing } = await runAgentStep(
      {
        ...input,
        scratch,
        sockets: undefined,
        share: {
          ...input.share,
          prompt: setup.goal,
          settings: {
            ...settings,
            env: { ...settings.env, ...setupEnv },
            timeoutSeconds: left,
          },
        },
      },
      draft,
      [],
    );
    await closing;
  } catch (error) {
    return new SetupFailedError(
      `the setup goal's agent run could not start: ${errorMessage(error)}`,
    );
  } finally {
    await rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
  const answer =
    draft.answer === undefined ? "" : `: ${cutText(cleanLine(draft.answer), 1024).text}`;
  output.line(
    "stdout",
    `the setup goal's agent run ended with code ${String(draft.agentExitCode)}${answer}`,
  );
  if (draft.timedOut) {
    return new SetupTimeoutError(
      `setup ran past its time limit of ${setup.timeoutSeconds} s in the setup goal's agent run and was stopped`,
    );
  }
  if (draft.agentExitCode !== 0) {
    return new SetupFailedError(
      `the setup goal's agent run exited with code ${String(draft.agentExitCode)}${answer}`,
    );
  }
  return undefined;
}

/** Stops whatever setup left running: the namespace's other processes, or those of its marker. */
async function reapSetup(input: SetupStepInput, marker: string): Promise<void> {
  await reapStragglers({
    scope: input.ownPidNamespace
      ? { kind: "namespace" }
      : { kind: "agent", pgid: undefined, marker: `${RUN_MARKER_VAR}=${marker}` },
    graceMs: 0,
  });
}

/** Sends the snapshot in pieces; false (with a progress line) when it could not be made or sent. */
async function sendSnapshot(input: SetupStepInput, channel: HostChannel): Promise<boolean> {
  const tarPath = join(input.scratch, "setup-snapshot.tar");
  try {
    const summary = await makeSnapshot(input.workspace, input.gitEnv, tarPath);
    input.progress(
      `setup snapshot: ${summary.files} files, ${summary.symlinks} links, ${summary.deletions.length} deletions, ${summary.bytes} bytes`,
    );
    const stream = createReadStream(tarPath, { highWaterMark: SETUP_LIMITS.snapshotChunkBytes });
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      await channel.request({ op: "setup.snapshot", data: chunk.toString("base64") });
    }
    return true;
  } catch (error) {
    input.progress(`setup snapshot not sent: ${cleanLine(errorMessage(error))}`);
    return false;
  } finally {
    await rm(tarPath, { force: true });
  }
}

/**
 * Runs the setup the settings name, if any. Resolves when the workspace is ready for the agent;
 * rejects with SetupFailedError, SetupTimeoutError or StoppedError when it is not.
 */
export async function runSetupStep(input: SetupStepInput): Promise<void> {
  const setup = input.share.settings.setup;
  if (setup === undefined) return;
  if (setup.restore) {
    input.progress("restoring the setup's snapshot from the host's cache; setup does not run");
    const summary = await restoreSnapshot(input.workspace, join(input.shareDir, SHARE_FILES.setup));
    input.progress(`restored ${summary.files} files and ${summary.deletions.length} deletions`);
    return;
  }
  const channel = await openChannel(input);
  if (channel === undefined && setup.envNames.length > 0) {
    throw new SetupFailedError(
      "setup needs its variables, and the host gave no channel to get them",
    );
  }
  try {
    const setupEnv =
      channel === undefined
        ? {}
        : (
            await channel.request({ op: "setup.start" }).catch((failure: unknown) => {
              throw new SetupFailedError(`the host did not start setup: ${errorMessage(failure)}`);
            })
          ).env;
    const output = new SetupOutput(channel, input.progress);
    const startedAt = performance.now();
    const endsAt = startedAt + setup.timeoutSeconds * 1000;
    const home = join(input.scratch, "setup-home");
    const tmpdir = join(input.scratch, "setup-tmp");
    await mkdir(home, { recursive: true, mode: 0o700 });
    await mkdir(tmpdir, { recursive: true, mode: 0o700 });
    const marker = randomHex(16);
    const env = {
      ...agentEnvironment({
        runner: input.env,
        pass: input.agentEnv,
        adapter: {},
        settings: {
          ...input.share.settings,
          env: { ...input.share.settings.env, ...setupEnv },
        },
        egress: input.egressEnv,
        metadataUrl: input.metadataUrl,
        tmpdir,
        marker,
        fallbackHome: home,
      }),
      HOME: home,
    };
    input.progress(`setup: running ${setup.commands.length} commands`);
    const outcome = await runSetupCommands({
      commands: setup.commands,
      cwd: input.workspace,
      env,
      endsAt,
      onLine: (stream, text) => {
        output.line(stream, text);
      },
      stop: input.stop,
    });
    let error = outcomeError(setup, outcome, output);
    if (error === undefined && setup.goal !== undefined) {
      error = await runGoal(input, { ...setup, goal: setup.goal }, setupEnv, endsAt, output);
    }
    await reapSetup(input, marker);
    await rm(home, { recursive: true, force: true });
    await rm(tmpdir, { recursive: true, force: true });
    await output.finish();
    const durationMs = Math.round(performance.now() - startedAt);
    const snapshot =
      error === undefined && setup.snapshot && channel !== undefined
        ? await sendSnapshot(input, channel)
        : false;
    if (channel !== undefined) {
      // The host may have ended setup itself (its own clock): then it refuses, and knows already.
      await channel
        .request({
          op: "setup.end",
          ok: error === undefined,
          timedOut: error instanceof SetupTimeoutError,
          ...(outcome.kind === "failed" ? { exitCode: outcome.exitCode } : {}),
          ...(error === undefined ? {} : { error: cutText(cleanLine(error.message), 4000).text }),
          durationMs,
          snapshot,
        })
        .catch((failure: unknown) => {
          input.progress(`the host did not take the end of setup: ${errorMessage(failure)}`);
        });
    }
    if (error !== undefined) throw error;
    input.progress(`setup finished in ${durationMs} ms`);
  } finally {
    channel?.close();
  }
}
