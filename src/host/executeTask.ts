// One attach of a task. executeTask makes the checks that need no lock and attaches; TaskRun
// then goes through six phases: prepare the attach's directories and the guest log; write the
// share; open the gates (the network gate, the channel to the guest); start the sandbox; await
// its end, its stdout received as results and its stderr as progress, stopping it when the task
// is cancelled or a bound passes; judge the results against what the host knows and decide the
// terminal record. What each phase opens is released, last opened first, however it all ends;
// the attach's directories go last, removed while the end is recorded.
import { rename, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import {
  authSecret,
  makePlaceholderKey,
  PLACEHOLDER_VARIABLES,
  startEgress,
  type RelayHostSettings,
  type RunningEgress,
} from "../egress/index.js";
import { adapterFor } from "../agents/index.js";
import {
  NO_TRACE,
  traceFromEnv,
  within,
  WRITE_CODE_CACHE_ENV,
  type PhaseTrace,
} from "../lang/index.js";
import {
  CHANNEL_SOCKET,
  INSIDE_SOCKET,
  cleanLine,
  SHARE_FILES,
  receiveResults,
  WardenError,
  workspaceBundleName,
  type ReceivedResults,
  type Result,
  type ResumeSettings,
} from "../protocol/index.js";
import type { RunningSandbox, SandboxBackendOptions, SandboxExit } from "../sandbox/index.js";
import type {
  Attachment,
  SuspendRecord,
  Tasks,
  TerminalInput,
  TerminalRecord,
} from "../store/index.js";
import {
  ApprovalDesk,
  OUTPUT_EVENT_TYPE,
  startChannelServer,
  type RunningChannel,
} from "./channel/index.js";
import { DOOR_SOCKET, GuestLinks, InsideDoor } from "./inside/index.js";
import { API_FAILURE_EVENT_TYPE, FirstApiFailure } from "./apiFailure.js";
import { BUDGET_EVENT_TYPE, TaskSpending, USAGE_EVENT_TYPE } from "./spending/index.js";
import { decideEnd, type ResultFacts } from "./decideEnd.js";
import { errorText } from "./errorText.js";
import { eventText } from "./eventText.js";
import { leaseHistory } from "./historyCache/index.js";
import { agentBinds } from "./guestProgram.js";
import { GuestProgress } from "./guestProgress.js";
import { GUEST_TRACE_FLAG, keepGuestPhases } from "./guestTrace.js";
import { HOST_LIMITS, hostLimitMs } from "./limits.js";
import { guestSettings } from "./hostSettings.js";
import { preflight, type Preflight } from "./preflight.js";
import { SILENT_REPORTER, type Reporter } from "./reporter.js";
import { StopTriggers, type StopReason } from "./stopTriggers.js";
import { SuspensionAtCheckpoint } from "./suspensionAtCheckpoint.js";
import { cleanAttempt } from "./cleanAttempt.js";
import { prepareAttempt, taskLayout, type TaskLayout } from "./taskLayout.js";
import { verifyChanges } from "./verifyChanges.js";
import { writeShare } from "./writeShare.js";
import { SETUP_EVENTS, SETUP_LOG, SetupPhase } from "./setupPhase.js";
import { guestSetup, planSetupAttach, type SetupAttach } from "./setupPlan.js";
import { verifyWorkspaces } from "./workspaceFacts.js";
import { leaseWorkspaces, writeWorkspacesShare } from "./workspaceShare.js";
import { copyTaskSkills } from "./taskSkills.js";
import { suspensionEnd, type SuspendInput } from "./suspensionEnd.js";
import { suspendWhen } from "./suspendWhen.js";
import { USAGE_LIMIT_EVENT_TYPE, UsageLimitWait } from "./usageLimitWait.js";
import { CheckpointReceiver, RESUMED_EVENT_TYPE, shareCheckpoint } from "./checkpoints/index.js";

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
  /** Where the attach's phases are timed; by default what WARDEN_TRACE in `env` asks for. */
  trace?: PhaseTrace;
  /** The data directory's daily spending cap from the user's config file (dailyBudgetUSD). */
  dailyBudgetUSD?: number;
  /**
   * A history repository of the caller's own, used instead of the data directory's cache: a
   * bare repository that holds the base under historyRef(base) and nothing the agent may not
   * read, kept in place until the attach ends. A fleet worker's checked mirror of a task's base
   * is one; the cache would only copy it again.
   */
  history?: string;
}

export type ExecuteOutcome =
  | { kind: "finished"; id: string; terminal: TerminalRecord }
  | { kind: "interrupted"; id: string }
  | { kind: "suspended"; id: string; suspension: SuspendRecord };

/** The API relay of the attach, and the key the agent holds in place of the real one. */
type Relay = RelayHostSettings & { readonly placeholder: string };

/** The gates between the sandbox and the world, open while it runs. */
interface Gates {
  readonly egress: RunningEgress;
  readonly channel: RunningChannel;
  /** The runner's connections for stepping inside, when the task allows it. */
  readonly inside: GuestLinks | undefined;
}

/** How the sandbox ended, as the host saw it. */
interface SandboxEnd {
  readonly exit: SandboxExit;
  readonly received: Received;
  readonly stop: Exclude<StopReason, "interrupt"> | undefined;
}

type Received =
  { kind: "received"; received: ReceivedResults } | { kind: "refused"; error: string };

/** One attach of one task, from the share to the decision. */
class TaskRun {
  private readonly layout: TaskLayout;
  /** The guest log, opened by prepare once results/ is empty; notes and warnings go there too. */
  private progress: GuestProgress | undefined;
  /** The history repository the share names, bound read-only into the sandbox. */
  private history: string | undefined;
  /** The history repositories of the bound workspaces, bound read-only too. */
  private workspaceHistories: readonly string[] = [];
  /** How to release what the phases opened, in the order they opened it. */
  private readonly releases: (() => Promise<unknown>)[] = [];
  /** Set once prepare has begun: from then on the attach has directories to remove. */
  private prepared = false;
  /** The removal of the attach's directories, once begun. */
  private removing: Promise<void> | undefined;
  /** How this attach's setup goes: none, restored from the cache, or run. */
  private setup: SetupAttach = { kind: "none" };
  /** The host's account of the setup while it runs; undefined when none runs. */
  private setupPhase: SetupPhase | undefined;
  /** The relay's spend gate (the task's, its tree's and the day's caps), when there is a relay. */
  private spending: TaskSpending | undefined;
  /** The stops of the running sandbox, once armed: a turn boundary may trigger a suspension. */
  private stops: StopTriggers | undefined;
  /** A suspension that waits for the runner's checkpoint before it stops the sandbox. */
  private readonly suspension = new SuspensionAtCheckpoint(
    HOST_LIMITS.suspendCheckpointWaitMs,
    HOST_LIMITS.usageLimitSettleMs,
  );
  /** The API's usage limit that suspends the task, or ends it when it resets past the deadline. */
  private readonly usageLimit = new UsageLimitWait(
    () => this.plan.spec.deadline,
    Date.now,
    ({ limit, verdict }) => {
      const resumeAt = verdict.kind === "wait" ? verdict.resumeAt : undefined;
      this.attachment.appendEvent(USAGE_LIMIT_EVENT_TYPE, {
        api: limit.api,
        resetAt: limit.resetAt,
        source: limit.source,
        verdict: verdict.kind,
        ...(resumeAt === undefined ? {} : { resumeAt }),
      });
      this.warn(
        verdict.kind === "wait"
          ? `the ${limit.api} API's usage limit was reached; the task is suspended until ${new Date(resumeAt ?? 0).toISOString()}`
          : `the ${limit.api} API's usage limit resets at ${new Date(limit.resetAt).toISOString()}, after the task's deadline`,
      );
    },
  );
  /** A refused key or an upstream that is not there: shown at once, and it ends the task. */
  private readonly apiFailure = new FirstApiFailure((failure) => {
    this.attachment.appendEvent(API_FAILURE_EVENT_TYPE, { ...failure });
    this.reporter.warn(failure.message);
    this.progress?.note(`warning: ${failure.message}`);
  });

  constructor(
    private readonly attachment: Attachment,
    private readonly plan: Preflight,
    private readonly options: ExecuteOptions,
    private readonly reporter: Reporter,
    private readonly dataDir: string,
    private readonly trace: PhaseTrace = NO_TRACE,
  ) {
    this.layout = taskLayout(dataDir, attachment.id);
  }

  /**
   * The terminal input, or "interrupted" when the host itself was told to stop, or how the task
   * is suspended (on request, or until a usage limit resets).
   */
  async run(): Promise<TerminalInput | SuspendInput | "interrupted"> {
    const trace = this.trace;
    try {
      await trace.around("prepare the attach", this.prepare());
      if (this.aborted()) return "interrupted";
      this.setup = await trace.around("plan the setup", this.planSetup());
      const relay = this.relay();
      // The share and the gates need nothing of each other: they are made at the same time, and
      // both are settled before anything goes on, so every release the gates push is in place.
      const [shared, opened] = await Promise.allSettled([
        trace.around("write the share", this.writeTaskShare(relay)),
        trace.around("open the gates", this.openGates(relay)),
      ]);
      if (shared.status === "rejected") throw shared.reason;
      if (opened.status === "rejected") throw opened.reason;
      const gates = opened.value;
      if (this.aborted()) return "interrupted";
      const sandbox = await trace.around("start the sandbox", this.startSandbox(gates));
      const end = await trace.around("sandbox running", this.awaitEnd(sandbox));
      if (end === "interrupted") return end;
      const suspended = suspensionEnd(end.stop, this.usageLimit.deciding, {
        base: this.plan.spec.base,
        attempt: this.attachment.attempt,
        sandbox: this.plan.backend.name,
      });
      if (suspended !== undefined) return suspended;
      return await trace.around("judge the results", this.judge(end));
    } catch (error) {
      return this.failed(error);
    } finally {
      const releasing = trace.start("release the attach");
      for (const release of this.releases.reverse()) await release();
      releasing();
    }
  }

  private async prepare(): Promise<void> {
    this.prepared = true;
    await prepareAttempt(this.layout);
    const progress = new GuestProgress(
      this.layout.guestLog,
      this.attachment.id,
      (type, data) => {
        this.attachment.appendEvent(type, data);
      },
      this.reporter,
      await this.attachment.shortId(),
      this.trace.on
        ? (line) => {
            keepGuestPhases(line, this.trace);
          }
        : undefined,
    );
    this.progress = progress;
    this.releases.push(() => progress.close());
  }

  /**
   * Removes the attach's share, workspace and egress directories, once, after run() has released
   * everything else (the sandbox is gone by then). executeTask runs it beside recording the end,
   * which reads none of them.
   */
  removeFiles(): Promise<void> {
    if (!this.prepared) return Promise.resolve();
    this.removing ??= cleanAttempt(this.layout).catch(() => undefined);
    return this.removing;
  }

  /** The API relay of the attach, with the placeholder key the agent is given. */
  private relay(): Relay | undefined {
    return this.plan.relay === undefined
      ? undefined
      : { ...this.plan.relay, placeholder: makePlaceholderKey(this.plan.relay.api) };
  }

  /** Writes the share, with the relay's placeholder key among the agent's variables. */
  private async writeTaskShare(relay: Relay | undefined): Promise<void> {
    const { spec, host, program } = this.plan;
    this.note(`attempt ${this.attachment.attempt}: preparing the share of ${spec.base}`);
    // The agent's variables reach it through task.json, which lives only as long as this
    // attach (cleanAttempt removes the share); the real API key is never among them.
    const agentEnv = {
      ...this.plan.variables,
      ...(relay === undefined ? {} : { [PLACEHOLDER_VARIABLES[relay.api]]: relay.placeholder }),
    };
    const setup = this.setup;
    const agentProgram = {
      ...(program === undefined ? {} : { agentProgram: program.path }),
      ...(setup.kind === "none"
        ? {}
        : {
            setup: guestSetup(
              setup.setup,
              setup.kind === "restore",
              setup.kind === "run" && setup.key !== undefined,
            ),
          }),
    };
    // Leased until the sandbox is gone (releases run last opened first), so no cache trim or
    // rebuild removes objects the sandbox's clone borrows.
    const given = this.options.history;
    const lease =
      given !== undefined
        ? { repository: given, release: () => undefined }
        : await this.trace.around(
            "lease the history cache",
            leaseHistory(this.dataDir, host, spec.base),
          );
    this.releases.push(() => {
      lease.release();
      return Promise.resolve();
    });
    this.history = lease.repository;
    const resume = await this.shareCheckpoint();
    await writeShare(this.layout.share, {
      settings: {
        ...guestSettings(host, spec, agentEnv, agentProgram),
        ...(resume === undefined ? {} : { resume }),
      },
      prompt: spec.prompt,
      gitDir: host.gitDir,
      base: spec.base,
      objectFormat: host.objectFormat,
      history: lease.repository,
    });
    const bound = host.workspaces ?? [];
    if (bound.length > 0) {
      const leased = await this.trace.around(
        "lease the workspaces' history caches",
        leaseWorkspaces(this.dataDir, bound),
      );
      this.releases.push(() => {
        leased.release();
        return Promise.resolve();
      });
      this.workspaceHistories = leased.repositories;
      await writeWorkspacesShare(this.layout.share, spec.repo, leased.inputs);
    }
    if (setup.kind === "restore") {
      await rename(setup.snapshot, join(this.layout.share, SHARE_FILES.setup));
    }
    await copyTaskSkills(host, this.layout.share);
  }

  /**
   * Puts the task's kept checkpoint into the share, when it has one (an attach after an
   * interruption, or a continuation's first), and records which one the attach starts from.
   */
  private async shareCheckpoint(): Promise<ResumeSettings | undefined> {
    const shared = await shareCheckpoint(
      this.layout.dir,
      this.layout.share,
      this.plan.spec.base,
      this.attachment.resumed !== undefined,
      (text) => {
        this.warn(text);
      },
    );
    if (shared === undefined) return undefined;
    const { manifest, resume } = shared;
    this.attachment.appendEvent(RESUMED_EVENT_TYPE, {
      checkpoint: manifest.seq,
      reason: resume.reason,
      checkpointAt: manifest.at,
      turn: manifest.turn,
      head: manifest.tip ?? manifest.head,
      session: resume.sessionId !== undefined,
      ...(manifest.from === undefined ? {} : { from: manifest.from }),
    });
    this.note(
      resume.reason === "continued"
        ? `continuing the conversation of task ${manifest.from ?? "?"}`
        : `resuming from checkpoint ${manifest.seq} (turn ${manifest.turn}, ${resume.reason})`,
    );
    return resume;
  }

  /** Whether this attach's setup runs or starts from the cache (setupPlan.ts). */
  private async planSetup(): Promise<SetupAttach> {
    await rm(join(this.layout.results, SETUP_LOG), { force: true });
    const setup = await planSetupAttach({
      dataDir: this.dataDir,
      host: this.plan.host,
      base: this.plan.spec.base,
      restorePath: join(this.layout.dir, "setup-restore.tar"),
      warn: (text) => {
        this.warn(text);
      },
      evicted: (why) => {
        this.attachment.appendEvent(SETUP_EVENTS.evicted, { why });
        this.warn(`the cached setup was removed (${why}); setup runs again`);
      },
    });
    if (setup.kind === "restore") {
      this.attachment.appendEvent(SETUP_EVENTS.cached, {
        commands: setup.setup.commands.length,
        goal: setup.setup.goal !== undefined,
        bytes: setup.bytes,
      });
      this.note("setup: starting from the cached snapshot; setup does not run");
    }
    return setup;
  }

  /** The host's account of a setup that runs: it answers the channel and narrows the network. */
  private openSetupPhase(egress: RunningEgress): SetupPhase | undefined {
    const setup = this.setup;
    if (setup.kind !== "run") return undefined;
    const phase = new SetupPhase({
      dataDir: this.dataDir,
      taskDir: this.layout.dir,
      log: join(this.layout.results, SETUP_LOG),
      key: setup.key,
      commands: setup.setup.commands.length,
      goal: setup.setup.goal !== undefined,
      timeoutSeconds: setup.setup.timeoutSeconds,
      env: this.plan.setupVariables,
      narrow: () => {
        egress.endSetup();
      },
      event: (type, data) => {
        this.recordPartEvent(type, data);
      },
      progress: (text) => {
        this.reporter.progress(text);
      },
      warn: (text) => {
        this.warn(text);
      },
    });
    this.setupPhase = phase;
    this.releases.push(() => phase.close());
    return phase;
  }

  /** The relay's spend gate; its release writes the task's last spend before the end is recorded. */
  private async openSpending(): Promise<TaskSpending> {
    const spending = await TaskSpending.open({
      dataDir: this.dataDir,
      taskId: this.attachment.id,
      ancestors: this.plan.spec.ancestors,
      dailyCapUSD: this.options.dailyBudgetUSD,
      onUsage: (totals) => this.attachment.appendEvent(USAGE_EVENT_TYPE, { ...totals }),
      onRefusal: ({ cap, capUSD, spentUSD, message }) => {
        this.attachment.appendEvent(BUDGET_EVENT_TYPE, { cap, capUSD, spentUSD, message });
        this.reporter.warn(message);
        this.progress?.note(`warning: ${message}`);
      },
      onWarning: (text) => {
        this.warn(text);
      },
    });
    this.spending = spending;
    this.releases.push(() => spending.close().catch(() => undefined));
    return spending;
  }

  /** The network gate, then the guest-to-host channel in the directory egress made (0700). */
  private async openGates(relay: Relay | undefined): Promise<Gates> {
    const { host, approval } = this.plan;
    const spend = relay === undefined ? undefined : await this.openSpending();
    const egress = await this.trace.around(
      "start egress",
      startEgress({
        dir: this.layout.egress,
        log: this.layout.proxyLog,
        allow: host.allow,
        presets: host.presets,
        ...(this.setup.kind === "run"
          ? { setup: { allow: this.setup.setup.allow, presets: this.setup.setup.presets } }
          : {}),
        ...(relay === undefined
          ? {}
          : {
              relay: {
                api: relay.api,
                upstream: relay.upstream,
                apiKey: authSecret(relay.auth),
                auth: relay.auth.kind,
                placeholderKey: relay.placeholder,
                onUpstreamFailure: (failure) => {
                  this.apiFailure.report(failure);
                },
                onUsageLimit: (limit) => {
                  this.usageLimit.report(limit);
                },
                ...(spend === undefined
                  ? {}
                  : {
                      spend,
                      onUnpricedModel: (model: string) => {
                        this.warn(
                          `the model ${cleanLine(model)} has no price in warden's table; its tokens are priced at the API's highest prices`,
                        );
                      },
                    }),
              },
            }),
      }),
    );
    this.releases.push(() => egress.close().catch(() => undefined));
    const setupPhase = this.openSetupPhase(egress);
    const endChannel = this.trace.start("start the channel");
    const checkpoints = new CheckpointReceiver({
      taskDir: this.layout.dir,
      base: this.plan.spec.base,
      attempt: this.attachment.attempt,
      sessions: adapterFor(this.plan.host.guest.agent).sessions,
      event: (type, data) => {
        if (type === "checkpoint") this.suspension.kept(this.stops);
        this.recordPartEvent(type, data);
      },
    });
    const channel = await startChannelServer({
      onCheckpoint: (request) => checkpoints.answer(request),
      path: join(this.layout.egress, CHANNEL_SOCKET),
      attachment: this.attachment,
      messagesDir: join(this.layout.share, SHARE_FILES.messages),
      approvals: new ApprovalDesk({
        attachment: this.attachment,
        policy: approval.policy,
        rules: approval.rules,
        timeoutMs: approval.timeoutMs,
        reporter: this.reporter,
      }),
      onAgentEvent: (event) => {
        this.suspension.agentEvent(event.type);
        // After the rest of the batch: a step's tool results come just after its turn_ended.
        if (event.type === "turn_ended") {
          setImmediate(() => {
            this.atTurnBoundary();
          });
        }
        const { type, ...fields } = event;
        const text = eventText("agent", { kind: type, ...fields });
        if (text !== undefined) this.reporter.progress(`agent: ${text}`);
      },
      onOutput: (event) => {
        const { type: _type, ...fields } = event;
        const text = eventText(OUTPUT_EVENT_TYPE, fields) ?? "";
        this.progress?.output(event.stream, text);
        this.reporter.progress(`${event.stream}: ${text}`);
      },
      ...(setupPhase === undefined ? {} : { onSetup: (request) => setupPhase.answer(request) }),
    });
    endChannel();
    this.releases.push(() => channel.close().catch(() => undefined));
    this.releases.push(() => checkpoints.close().catch(() => undefined));
    return { egress, channel, inside: await this.openInside() };
  }

  /**
   * Stepping inside (exec, shell, cp, stop), only for a task whose settings allow it: the
   * runner's socket and the user's door, both in the egress directory that only the owner may
   * enter.
   */
  private async openInside(): Promise<GuestLinks | undefined> {
    const { guest } = this.plan.host;
    if (guest.allowExec !== true) return undefined;
    const links = await GuestLinks.listen(join(this.layout.egress, INSIDE_SOCKET));
    this.releases.push(() => links.close().catch(() => undefined));
    const door = await InsideDoor.listen({
      path: join(this.layout.egress, DOOR_SOCKET),
      guest: links,
      debug: guest.debug === true,
      record: (type, data) => {
        try {
          this.attachment.appendEvent(type, data);
        } catch (error) {
          // Only a closed attachment refuses a well-formed event: the run is over.
          if (!(error instanceof WardenError)) throw error;
        }
      },
    });
    this.releases.push(() => door.close().catch(() => undefined));
    return links;
  }

  private async startSandbox({ egress, channel, inside }: Gates): Promise<RunningSandbox> {
    const { backend, host, runner, program } = this.plan;
    const sockets = [{ name: "proxy", path: egress.proxySocket }];
    if (egress.relaySocket !== undefined) sockets.push({ name: "relay", path: egress.relaySocket });
    // The socket's name inside is control.sock: the backend appends `.sock` to each name.
    sockets.push({ name: CHANNEL_SOCKET.replace(/\.sock$/, ""), path: channel.path });
    if (inside !== undefined) {
      sockets.push({ name: INSIDE_SOCKET.replace(/\.sock$/, ""), path: inside.path });
    }
    const sandbox = await backend.start({
      taskId: this.attachment.id,
      share: this.layout.share,
      workspace: this.layout.workspace,
      sockets,
      runner: {
        program: runner.program,
        args: this.trace.on ? [...runner.args, GUEST_TRACE_FLAG] : runner.args,
      },
      readOnlyBinds: [
        ...runner.binds,
        ...agentBinds(host.guest.command),
        ...(program?.binds ?? []),
        ...(this.history === undefined ? [] : [this.history]),
        ...this.workspaceHistories,
      ],
      env: this.runnerEnv(backend.isolated),
      limits: host.limits ?? {},
      trace: this.trace,
    });
    // Nothing of the sandbox may outlive the attach; only a failure of warden's own while it
    // ran leaves it running when the attach is released.
    let ended = false;
    const end = (): void => {
      ended = true;
    };
    sandbox.exit.then(end, end);
    this.releases.push(async () => {
      if (!ended) await sandbox.stop(HOST_LIMITS.refusedGraceMs).catch(() => undefined);
    });
    this.attachment.appendEvent("sandbox", {
      backend: backend.name,
      isolated: backend.isolated,
      attempt: this.attachment.attempt,
    });
    for (const warning of sandbox.warnings) this.warn(warning);
    this.note(`running in the ${backend.name} sandbox`);
    return sandbox;
  }

  /**
   * What the runner's environment gets from the host's: nothing, but the build's request to
   * write the runner's code cache (scripts/warmProgramCache.mjs), and only for a runner that is
   * not isolated. The build writes it at the end of a task it runs without a sandbox; a runner
   * in a sandbox never writes beside its bundle, which the host loads from.
   */
  private runnerEnv(isolated: boolean): Record<string, string> {
    const hostEnv = this.options.env ?? process.env;
    return !isolated && hostEnv[WRITE_CODE_CACHE_ENV] === "1"
      ? { [WRITE_CODE_CACHE_ENV]: "1" }
      : {};
  }

  /**
   * Receives the sandbox's stdout as results while its stderr becomes progress, and stops it
   * when the task is cancelled, a bound passes or its results are refused; "interrupted" when
   * the host itself was told to stop.
   */
  private async awaitEnd(sandbox: RunningSandbox): Promise<SandboxEnd | "interrupted"> {
    const stops = this.armStops(sandbox);
    this.stops = stops;
    this.apiFailure.arm(() => {
      stops.trigger("api");
    });
    this.usageLimit.arm(() => {
      this.suspension.usageLimit(stops);
    });
    this.spending?.arm(() => {
      stops.trigger("budget");
    });
    try {
      sandbox.onBound((bound) => {
        this.attachment.appendEvent("bound", { bound: bound.bound, detail: bound.detail });
        this.warn(`the sandbox reached ${bound.detail}`);
        stops.trigger("bound");
      });
      // Both streams are read at once: a runner blocked on a full stderr pipe would never
      // finish its archive, and one blocked on stdout would never write progress.
      const receiving = this.receive(sandbox.stdout).then((received) => {
        if (received.kind === "refused") stops.trigger("refused");
        return received;
      });
      const reading = this.progress?.read(sandbox.stderr) ?? Promise.resolve();
      const endRun = this.trace.start("sandbox exit after start");
      const exit = await sandbox.exit;
      endRun();
      let received = await within(receiving, HOST_LIMITS.drainAfterExitMs);
      if (received === undefined) {
        sandbox.stdout.destroy();
        received = await receiving;
      }
      if ((await within(reading, HOST_LIMITS.drainAfterExitMs)) === undefined) {
        sandbox.stderr.destroy();
      }
      return stops.reason === "interrupt" ? "interrupted" : { exit, received, stop: stops.reason };
    } catch (error) {
      if (stops.reason === "interrupt") return "interrupted";
      throw error;
    } finally {
      this.apiFailure.disarm();
      this.usageLimit.disarm();
      this.spending?.disarm();
      this.stops = undefined;
      this.suspension.close();
      stops.close();
    }
  }

  /** Stops the sandbox on a cancel request, at the deadline or the host's limit, or on an interrupt. */
  private armStops(sandbox: RunningSandbox): StopTriggers {
    const { host, spec } = this.plan;
    // A debug hold lasts until `warden stop` or the deadline: the host's own limit for a runner
    // that hangs would end it first.
    const limit = host.guest.debug === true ? undefined : hostLimitMs(host.guest.timeoutSeconds);
    const grace = this.options.stopGraceMs ?? HOST_LIMITS.stopGraceMs;
    const agent = host.guest.agent;
    return new StopTriggers({
      dir: this.layout.dir,
      cancelRequested: () => this.attachment.cancelRequested(),
      suspendNow: () => {
        try {
          const request = this.attachment.suspendRequest();
          return request !== undefined && suspendWhen(agent, request.now) === "at_once";
        } catch {
          // A damaged request is no request; `warden suspend` writes it whole.
          return false;
        }
      },
      deadline: spec.deadline,
      hostLimitAt: limit === undefined ? undefined : Date.now() + limit,
      now: Date.now,
      signal: this.options.signal,
      onStop: (reason) => {
        this.attachment.appendEvent("stopping", { reason });
        this.note(`stopping the sandbox: ${STOP_WORDS[reason]}`);
        void sandbox.stop(reason === "refused" ? HOST_LIMITS.refusedGraceMs : grace);
      },
    });
  }

  /**
   * The agent finished a turn (for Claude Code a step: an assistant message and its tool
   * results): a request to suspend waits for this moment, so the agent stops between steps
   * rather than inside one, and then for the checkpoint the runner takes at the boundary, so
   * that `resume` goes on from here rather than from an older one. The one place a turn
   * boundary acts on the run.
   */
  atTurnBoundary(): void {
    if (this.stops === undefined || this.suspension.waiting) return;
    if (this.attachment.released) return;
    let asked: boolean;
    try {
      asked = this.attachment.suspendRequest() !== undefined;
    } catch {
      // A damaged request is no request; `warden suspend` writes it whole.
      asked = false;
    }
    if (!asked) return;
    this.suspension.atBoundary(this.stops);
  }

  /** Records an event of one of the run's parts (setup, checkpoints) while the run lasts. */
  private recordPartEvent(type: string, data: Record<string, unknown>): void {
    try {
      this.attachment.appendEvent(type, data);
    } catch (error) {
      // Only a closed attachment refuses a well-formed event: the run is over.
      if (!(error instanceof WardenError)) throw error;
    }
  }

  /** Checks the results against what the host knows, and decides the terminal record. */
  private async judge({ exit, received, stop }: SandboxEnd): Promise<TerminalInput> {
    const { backend, host, spec } = this.plan;
    const results =
      received.kind === "received"
        ? await this.verify(received.received.result, received.received.workspaceFiles)
        : received;
    return decideEnd({
      base: spec.base,
      stop,
      results,
      exit,
      timeoutSeconds: host.guest.timeoutSeconds,
      attempt: this.attachment.attempt,
      sandbox: backend.name,
      agent: host.guest.agent,
      apiFailure: this.apiFailure.failure,
      budget: this.spending?.refusal,
      spend: this.spending?.totals,
      setup: this.setupPhase?.failure,
    });
  }

  /** The result the sandbox claims, with the bundle of changes the host checked itself. */
  private async verify(
    result: Result,
    files: ReceivedResults["workspaceFiles"],
  ): Promise<ResultFacts> {
    for (const warning of result.warnings) this.warn(`the sandbox says: ${cleanLine(warning)}`);
    const bundle = await verifyChanges({
      bundle: this.layout.result("changes.bundle"),
      base: this.plan.spec.base,
      gitDir: this.plan.host.gitDir,
      objectFormat: this.plan.host.objectFormat,
      scratchParent: this.layout.dir,
    });
    const bound = this.plan.host.workspaces ?? [];
    if (bound.length === 0) return { kind: "received", result, bundle };
    const workspaces = await verifyWorkspaces(
      bound,
      files,
      (name) => join(this.layout.results, workspaceBundleName(name)),
      this.layout.dir,
    );
    return { kind: "received", result, bundle, workspaces };
  }

  /** The terminal input of an attach that warden itself could not carry through. */
  private failed(error: unknown): TerminalInput {
    const code = error instanceof WardenError ? error.code : "UNEXPECTED";
    const text = errorText(error);
    this.warn(`could not run the task: ${text}`);
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
  }

  private async receive(stdout: Readable): Promise<Received> {
    try {
      const received = await receiveResults(stdout, {
        dir: this.layout.results,
        workspaces: (this.plan.host.workspaces ?? []).map((w) => w.name),
      });
      return { kind: "received", received };
    } catch (error) {
      const text = `the sandbox's results were refused: ${errorText(error)}`;
      this.warn(text);
      return { kind: "refused", error: text };
    }
  }

  /** Read through a method: the signal may abort while run() awaits. */
  private aborted(): boolean {
    return this.options.signal?.aborted === true;
  }

  private note(text: string): void {
    this.reporter.note(text);
    this.progress?.note(text);
  }

  private warn(text: string): void {
    this.reporter.warn(text);
    this.progress?.note(`warning: ${text}`);
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
  api: "the model API failed in a way no retry mends",
  budget: "it reached a spending cap",
  suspend: "the task is being suspended; `warden resume` runs it on",
  usage_limit: "the model API's usage limit was reached",
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
  const trace = options.trace ?? traceFromEnv(env);
  const executing = trace.start("executeTask");
  const id = await tasks.resolve(ref);
  const plan = await trace.around("preflight", preflight(tasks, id, env, options));
  const attachment = await trace.around("attach", tasks.attach(id));
  const run = new TaskRun(attachment, plan, options, reporter, tasks.dataDir, trace);
  try {
    const input = await run.run();
    if (input === "interrupted") return { kind: "interrupted", id };
    if ("suspend" in input) {
      const suspension = await trace.around(
        "record the suspension",
        attachment.suspend(input.suspend),
      );
      reporter.note(
        suspension.resumeAt === undefined
          ? "suspended: `warden resume` runs it on"
          : `suspended until ${new Date(suspension.resumeAt).toISOString()}`,
      );
      return { kind: "suspended", id, suspension };
    }
    // The end is recorded while the attach's directories are removed: neither needs the other.
    const [terminal] = await Promise.all([
      trace.around("record the end", attachment.finish(input)),
      trace.around("remove the attach's directories", run.removeFiles()),
    ]);
    return { kind: "finished", id, terminal };
  } finally {
    await run.removeFiles();
    reporter.done();
    attachment.release();
    executing();
  }
}
