// One attach of a task, end to end: the checks that need no lock, the attach, the share, the
// network gate, the sandbox; its stdout received as results while its stderr becomes progress;
// the stop when the task is cancelled or a bound passes; the results checked against what the
// host knows; and the terminal record, decided by decideEnd.
import { join } from "node:path";
import type { Readable } from "node:stream";
import {
  authSecret,
  makePlaceholderKey,
  PLACEHOLDER_VARIABLES,
  startEgress,
  type RunningEgress,
} from "../egress/index.js";
import {
  CHANNEL_SOCKET,
  cleanLine,
  receiveResults,
  WardenError,
  type ReceivedResults,
} from "../protocol/index.js";
import type { RunningSandbox, SandboxBackendOptions, SandboxRequest } from "../sandbox/index.js";
import type { Attachment, Tasks, TerminalInput, TerminalRecord } from "../store/index.js";
import { ApprovalDesk } from "./approvalDesk.js";
import { startChannelServer, type RunningChannel } from "./channelServer.js";
import { decideEnd, type ResultFacts } from "./decideEnd.js";
import { eventText } from "./eventText.js";
import { agentBinds } from "./guestProgram.js";
import { GuestProgress } from "./guestProgress.js";
import { HOST_LIMITS, hostLimitMs } from "./hostLimits.js";
import { guestSettings } from "./hostSettings.js";
import { preflight, type Preflight } from "./preflight.js";
import { SILENT_REPORTER, type Reporter } from "./reporter.js";
import { StopTriggers, type StopReason } from "./stopTriggers.js";
import { cleanAttempt, prepareAttempt, taskLayout, type TaskLayout } from "./taskLayout.js";
import { verifyChanges } from "./verifyChanges.js";
import { writeShare } from "./writeShare.js";

export interface ExecuteOptions {
  /** The host's environment: --env values and the API credential are read from it. */
  env?: Readonly<Record<string, string | undefined>>;
  reporter?: Reporter;
  /**
   * Aborting stops the sandbox (with its grace) and lets go of the task without recording an
   * end: it reads `interrupted`, and the next attach runs it again. For SIGINT and SIGTERM.
   */
  signal?: AbortSignal;
  /** For tests of the backends' plans; the machine's own layout by default. */
  sandboxOptions?: SandboxBackendOptions;
  /** Between SIGTERM to the runner and SIGKILL of the sandbox (default HOST_LIMITS.stopGraceMs). */
  stopGraceMs?: number;
}

export type ExecuteOutcome =
  { kind: "finished"; id: string; terminal: TerminalRecord } | { kind: "interrupted"; id: string };

function errorText(error: unknown): string {
  if (error instanceof WardenError) return error.message;
  return cleanLine(error instanceof Error ? error.message : String(error));
}

/** Resolves with `promise`, or with undefined once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => {
      resolve(undefined);
    }, ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** One attach of one task, from the share to the decision. */
class TaskRun {
  readonly #layout: TaskLayout;
  /** Made once prepareAttempt has emptied results/, where its log goes. */
  #progress: GuestProgress | undefined;
  #stops: StopTriggers | undefined;
  /** The sandbox once started, and whether it has ended: nothing of it may outlive the attach. */
  #sandbox: RunningSandbox | undefined;
  #ended = false;

  constructor(
    private readonly attachment: Attachment,
    private readonly plan: Preflight,
    private readonly options: ExecuteOptions,
    private readonly reporter: Reporter,
    dataDir: string,
  ) {
    this.#layout = taskLayout(dataDir, attachment.id);
  }

  /** The terminal input, or "interrupted" when the host itself was told to stop. */
  async run(): Promise<TerminalInput | "interrupted"> {
    let egress: RunningEgress | undefined;
    let channel: RunningChannel | undefined;
    try {
      await prepareAttempt(this.#layout);
      this.#progress = new GuestProgress(
        this.#layout.guestLog,
        this.attachment.id,
        (type, data) => {
          this.attachment.appendEvent(type, data);
        },
        this.reporter,
      );
      if (this.#aborted()) return "interrupted";
      const { spec, host } = this.plan;
      this.#note(`attempt ${this.attachment.attempt}: preparing the share of ${spec.base}`);
      const relay = this.plan.relay;
      const placeholder = relay === undefined ? undefined : makePlaceholderKey(relay.api);
      // The agent's variables reach it through task.json, which lives only as long as this
      // attach (cleanAttempt removes the share); the real API key is never among them.
      const agentEnv = {
        ...this.plan.variables,
        ...(relay === undefined || placeholder === undefined
          ? {}
          : { [PLACEHOLDER_VARIABLES[relay.api]]: placeholder }),
      };
      const program = this.plan.program;
      await writeShare(this.#layout.share, {
        settings: guestSettings(
          host,
          spec,
          agentEnv,
          program === undefined ? {} : { agentProgram: program.path },
        ),
        prompt: spec.prompt,
        gitDir: host.gitDir,
        base: spec.base,
        objectFormat: host.objectFormat,
      });
      egress = await this.#startEgress(placeholder);
      channel = await this.#startChannel();
      if (this.#aborted()) return "interrupted";
      const sandbox = await this.plan.backend.start(this.#request(egress, channel));
      this.#sandbox = sandbox;
      const ended = (): void => {
        this.#ended = true;
      };
      sandbox.exit.then(ended, ended);
      return await this.#supervise(sandbox);
    } catch (error) {
      if (this.#stops?.reason === "interrupt") return "interrupted";
      const code = error instanceof WardenError ? error.code : "UNEXPECTED";
      const text = errorText(error);
      this.#warn(`could not run the task: ${text}`);
      return {
        state: "failed",
        error: `could not run the task: ${text}`,
        details: {
          base: this.plan.spec.base,
          attempt: this.attachment.attempt,
          sandbox: this.plan.host.sandbox,
          code,
        },
      };
    } finally {
      this.#stops?.close();
      // Only a failure of warden's own while the sandbox ran leaves it running here.
      if (this.#sandbox !== undefined && !this.#hasEnded()) {
        await this.#sandbox.stop(HOST_LIMITS.refusedGraceMs).catch(() => undefined);
      }
      await channel?.close().catch(() => undefined);
      await egress?.close().catch(() => undefined);
      await this.#progress?.close();
      await cleanAttempt(this.#layout).catch(() => undefined);
    }
  }

  async #startEgress(placeholder: string | undefined): Promise<RunningEgress> {
    const { host } = this.plan;
    const relay = this.plan.relay;
    return startEgress({
      dir: this.#layout.egress,
      log: this.#layout.proxyLog,
      allow: host.allow,
      presets: host.presets,
      ...(relay === undefined || placeholder === undefined
        ? {}
        : {
            relay: {
              api: relay.api,
              upstream: relay.upstream,
              apiKey: authSecret(relay.auth),
              auth: relay.auth.kind,
              placeholderKey: placeholder,
            },
          }),
    });
  }

  /** The guest-to-host channel, in the egress directory startEgress made (0700). */
  async #startChannel(): Promise<RunningChannel> {
    const { approval } = this.plan;
    return startChannelServer({
      path: join(this.#layout.egress, CHANNEL_SOCKET),
      attachment: this.attachment,
      approvals: new ApprovalDesk({
        attachment: this.attachment,
        policy: approval.policy,
        rules: approval.rules,
        timeoutMs: approval.timeoutMs,
        reporter: this.reporter,
      }),
      onAgentEvent: (event) => {
        const { type, ...fields } = event;
        const text = eventText("agent", { kind: type, ...fields });
        if (text !== undefined) this.reporter.progress(`agent: ${text}`);
      },
    });
  }

  #request(egress: RunningEgress, channel: RunningChannel): SandboxRequest {
    const { host, runner, program } = this.plan;
    const sockets = [{ name: "proxy", path: egress.proxySocket }];
    if (egress.relaySocket !== undefined) sockets.push({ name: "relay", path: egress.relaySocket });
    // The socket's name inside is control.sock: the backend appends `.sock` to each name.
    sockets.push({ name: CHANNEL_SOCKET.replace(/\.sock$/, ""), path: channel.path });
    return {
      taskId: this.attachment.id,
      share: this.#layout.share,
      workspace: this.#layout.workspace,
      sockets,
      runner: { program: runner.program, args: runner.args },
      readOnlyBinds: [
        ...runner.binds,
        ...agentBinds(host.guest.command),
        ...(program?.binds ?? []),
      ],
      env: {},
      limits: host.limits ?? {},
    };
  }

  async #supervise(sandbox: RunningSandbox): Promise<TerminalInput | "interrupted"> {
    const { backend, host, spec } = this.plan;
    this.attachment.appendEvent("sandbox", {
      backend: backend.name,
      isolated: backend.isolated,
      attempt: this.attachment.attempt,
    });
    for (const warning of sandbox.warnings) this.#warn(warning);
    this.#note(`running in the ${backend.name} sandbox`);
    const limit = hostLimitMs(host.guest.timeoutSeconds);
    const grace = this.options.stopGraceMs ?? HOST_LIMITS.stopGraceMs;
    const stops = new StopTriggers({
      dir: this.#layout.dir,
      cancelRequested: () => this.attachment.cancelRequested(),
      deadline: spec.deadline,
      hostLimitAt: limit === undefined ? undefined : Date.now() + limit,
      now: Date.now,
      ...(this.options.signal === undefined ? {} : { signal: this.options.signal }),
      onStop: (reason) => {
        this.attachment.appendEvent("stopping", { reason });
        this.#note(`stopping the sandbox: ${STOP_WORDS[reason]}`);
        void sandbox.stop(reason === "refused" ? HOST_LIMITS.refusedGraceMs : grace);
      },
    });
    this.#stops = stops;
    sandbox.onBound((bound) => {
      this.attachment.appendEvent("bound", { bound: bound.bound, detail: bound.detail });
      this.#warn(`the sandbox reached ${bound.detail}`);
      stops.trigger("bound");
    });

    // Both streams are read at once: a runner blocked on a full stderr pipe would never finish
    // its archive, and one blocked on stdout would never write progress.
    const receiving = this.#receive(sandbox.stdout).then((facts) => {
      if (facts.kind === "refused") stops.trigger("refused");
      return facts;
    });
    const reading = this.#progress?.read(sandbox.stderr) ?? Promise.resolve();
    const exit = await sandbox.exit;
    let received = await within(receiving, HOST_LIMITS.drainAfterExitMs);
    if (received === undefined) {
      sandbox.stdout.destroy();
      received = await receiving;
    }
    if ((await within(reading, HOST_LIMITS.drainAfterExitMs)) === undefined) {
      sandbox.stderr.destroy();
    }
    stops.close();
    if (stops.reason === "interrupt") return "interrupted";

    let results: ResultFacts;
    if (received.kind === "received") {
      const result = received.received.result;
      for (const warning of result.warnings) this.#warn(`the sandbox says: ${cleanLine(warning)}`);
      const bundle = await verifyChanges({
        bundle: this.#layout.result("changes.bundle"),
        base: spec.base,
        gitDir: host.gitDir,
        objectFormat: host.objectFormat,
        scratchParent: this.#layout.dir,
      });
      results = { kind: "received", result, bundle };
    } else {
      results = received;
    }
    const stop = stops.reason;
    return decideEnd({
      base: spec.base,
      stop,
      results,
      exit: {
        code: exit.code,
        signal: exit.signal,
        outOfMemory: exit.outOfMemory,
        bound: exit.bound,
      },
      timeoutSeconds: host.guest.timeoutSeconds,
      attempt: this.attachment.attempt,
      sandbox: backend.name,
      agent: host.guest.agent,
    });
  }

  async #receive(
    stdout: Readable,
  ): Promise<{ kind: "received"; received: ReceivedResults } | { kind: "refused"; error: string }> {
    try {
      const received = await receiveResults(stdout, { dir: this.#layout.results });
      return { kind: "received", received };
    } catch (error) {
      const text = `the sandbox's results were refused: ${errorText(error)}`;
      this.#warn(text);
      return { kind: "refused", error: text };
    }
  }

  /** Read through a method: the sandbox may end while run() awaits. */
  #hasEnded(): boolean {
    return this.#ended;
  }

  /** Read through a method: the signal may abort while run() awaits. */
  #aborted(): boolean {
    return this.options.signal?.aborted === true;
  }

  #note(text: string): void {
    this.reporter.note(text);
    this.#progress?.note(text);
  }

  #warn(text: string): void {
    this.reporter.warn(text);
    this.#progress?.note(`warning: ${text}`);
    this.attachment.appendEvent("warning", { text: cleanLine(text) });
  }
}

const STOP_WORDS: Record<StopReason, string> = {
  cancel: "the task was cancelled",
  deadline: "the task reached its deadline",
  host_timeout: "the task ran past the host's time limit",
  interrupt: "warden was told to stop; the task can be run again with `warden start`",
  refused: "its results were refused",
  bound: "it reached one of its bounds",
};

/**
 * Runs one attach of task `ref`: refuses before attaching when the sandbox cannot run here, the
 * runner is missing or a variable named with --env is not set; otherwise attaches (refusing a
 * finished, cancelled or expired task), runs it and records its end. An abort of
 * `options.signal` lets go of the task without an end instead.
 */
export async function executeTask(
  tasks: Tasks,
  ref: string,
  options: ExecuteOptions = {},
): Promise<ExecuteOutcome> {
  const env = options.env ?? process.env;
  const reporter = options.reporter ?? SILENT_REPORTER;
  const id = await tasks.resolve(ref);
  const plan = await preflight(tasks, id, env, options);
  const attachment = await tasks.attach(id);
  try {
    const input = await new TaskRun(attachment, plan, options, reporter, tasks.dataDir).run();
    if (input === "interrupted") return { kind: "interrupted", id };
    const terminal = await attachment.finish(input);
    return { kind: "finished", id, terminal };
  } finally {
    reporter.done();
    attachment.release();
  }
}
