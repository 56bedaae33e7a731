// One task, start to end, as DESIGN.md "The runner" orders it: share, metadata server,
// workspace, agent, git again, archive. A failing step becomes the result's error, the steps
// that can still run do, and the archive is written with whatever was made.
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, relative } from "node:path";
import type { Writable } from "node:stream";
import {
  NO_TRACE,
  randomHex,
  settled,
  startDeadline,
  type PhaseTrace,
  type Settled,
} from "../lang/index.js";
import { agentDirectory } from "./agentDirectory.js";
import {
  finishBound,
  prepareBound,
  workspaceLayout,
  type PreparedBound,
} from "./boundWorkspaces.js";
import {
  INSIDE_SOCKET,
  RESULT_FILES,
  SHARE_FILES,
  workspaceBundleName,
  writeResults,
  type Result,
  type ResultsFile,
} from "../protocol/index.js";
import { agentEnvironment, DEFAULT_PATH } from "./agentEnvironment.js";
import { startInsideService, type InsideService } from "./insideService.js";
import { runAgentStep } from "./agentStep.js";
import { startEgressForwarding, type EgressForwarding } from "./egressForwarding.js";
import { GitDeadlineError, StoppedError, UsageError } from "./errors.js";
import { finishedCheckpoint, type WorkspaceCheckpoint } from "./checkpointGit.js";
import { finishGit, type FinishReport } from "./finishGit.js";
import { GIT_STEP_DEADLINE_MS, gitEnvironment, identityOf } from "./gitSteps.js";
import { startMetadataServer, type MetadataServer } from "./metadataServer.js";
import type { GuestOptions } from "./options.js";
import { prepareWorkspace, type PreparedWorkspace } from "./prepareWorkspace.js";
import { readShare, type Share } from "./readShare.js";
import { restoreCheckpoint } from "./restoreCheckpoint.js";
import { runSetupStep } from "./setupStep.js";
import { finalResult, newDraft, recordFailure } from "./resultDraft.js";

export interface RunTaskOptions extends GuestOptions {
  /** Where the results archive goes: the runner's stdout. */
  readonly out: Writable;
  /** One plain line of progress (the runner's stderr). */
  readonly progress: (line: string) => void;
  /** Aborts when the runner is told to stop; its reason, an Error, becomes the result's error. */
  readonly stop?: AbortSignal;
  /** The runner's own environment, which the agent's is built from. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** For tests: each git step's deadline. */
  readonly gitDeadlineMs?: number;
  /** Where the steps are timed when the host asked for a trace (--trace). */
  readonly trace?: PhaseTrace;
}

export interface TaskOutcome {
  readonly result: Result;
  /** 0 when every step ran, 1 when one failed. */
  readonly exitCode: 0 | 1;
}

function isInside(child: string, parent: string): boolean {
  const path = relative(parent, child);
  return path === "" || (!path.startsWith("..") && !isAbsolute(path));
}

/**
 * Runs one task and writes the archive to `options.out`. Rejects only for a usage error (before
 * anything ran) or when the archive itself cannot be written.
 */
export async function runTask(options: RunTaskOptions): Promise<TaskOutcome> {
  const stop = options.stop ?? new AbortController().signal;
  const env = options.env ?? process.env;
  const { progress, workspace } = options;
  const trace = options.trace ?? NO_TRACE;
  const ownScratch = options.scratch === undefined;
  const scratch = options.scratch ?? (await mkdtemp(join(tmpdir(), "warden-guest-")));
  if (isInside(scratch, workspace)) {
    throw new UsageError("the scratch directory must not be inside the workspace", {
      hint: "give --scratch a directory outside --workspace",
    });
  }
  await mkdir(scratch, { recursive: true, mode: 0o700 });

  const draft = newDraft();
  const files: ResultsFile[] = [];
  const fail = (error: unknown): void => {
    progress(`error: ${recordFailure(draft, error)}`);
  };
  const gitDeadlineMs = options.gitDeadlineMs ?? GIT_STEP_DEADLINE_MS;
  const gitEnv = gitEnvironment(env.PATH ?? DEFAULT_PATH, join(scratch, "git-home"));
  const deadline = (what: string, signal: AbortSignal) =>
    startDeadline(
      gitDeadlineMs,
      signal,
      () => new GitDeadlineError(`git did not ${what} within ${gitDeadlineMs / 60_000} minutes`),
    );

  let server: MetadataServer | undefined;
  let egress: EgressForwarding | undefined;
  let inside: InsideService | undefined;
  // The agent step's last checkpoint, which runs on while step 5 finishes the workspace's git.
  let agentClosing: Promise<Settled<void>> | undefined;
  // What step 5 made, for that checkpoint's workspace part; settled on every way out, so the
  // checkpoint never waits for a step 5 that does not come.
  let finishedIs: (checkpoint: WorkspaceCheckpoint | undefined) => void = () => undefined;
  const finished = new Promise<WorkspaceCheckpoint | undefined>((resolve) => {
    finishedIs = resolve;
  });
  try {
    // Steps 1 to 3: without the share, a server or a workspace there is nothing more to do.
    let prepared: PreparedWorkspace;
    let share: Share;
    let agentDir: string;
    // The task's own repository: the workspace root, or `main` under it beside bound ones.
    let main = workspace;
    let bound: PreparedBound[] = [];
    try {
      share = await trace.around("read the share", readShare(options.share));
      const layout = workspaceLayout(workspace, share.workspaces);
      main = layout.main;
      draft.agent = share.settings.agent;
      server = await trace.around(
        "start the metadata server",
        startMetadataServer({ settings: share.settings, port: options.metadataPort }),
      );
      progress(`metadata server at ${server.url}`);
      const prepareDeadline = deadline("prepare the workspace", stop);
      try {
        prepared = await trace.around(
          "prepare the workspace",
          prepareWorkspace({
            input: share.input,
            identity: identityOf(share.settings),
            git: { workspace: main, env: gitEnv, signal: prepareDeadline.signal, trace },
            progress,
          }),
        );
        bound = await trace.around(
          "prepare the bound workspaces",
          prepareBound({
            bound: layout.bound,
            identity: identityOf(share.settings),
            git: { env: gitEnv, signal: prepareDeadline.signal, trace },
            progress,
          }),
        );
      } finally {
        prepareDeadline.clear();
      }
      draft.base = prepared.base;
      const resume = share.settings.resume;
      if (resume !== undefined) {
        const restoreDeadline = deadline("restore the checkpoint", stop);
        try {
          await trace.around(
            "restore the checkpoint",
            restoreCheckpoint(
              options.share,
              resume,
              { workspace: main, env: gitEnv, signal: restoreDeadline.signal, trace },
              progress,
            ),
          );
        } finally {
          restoreDeadline.clear();
        }
      }
      agentDir = await agentDirectory(main, share.settings.workdir);
      egress = await trace.around(
        "start egress forwarding",
        startEgressForwarding(options.sockets, options.egressPorts),
      );
      progress(`workspace prepared at ${prepared.base}`);
      // /readyz answers 503 until setup has finished: the workspace is not ready before.
      await trace.around(
        "setup",
        runSetupStep({
          ...options,
          workspace: main,
          share,
          shareDir: options.share,
          gitEnv,
          scratch,
          agentDir,
          metadataUrl: server.url,
          egressEnv: egress.env,
          relayUrl: egress.relayUrl,
          env,
          stop,
        }),
      );
      server.setReady(
        { path: main, base: prepared.base, source: share.workspaces?.mainSource },
        bound,
      );
      progress(`workspace ready at ${prepared.base}`);
      if (share.settings.allowExec === true && options.sockets !== undefined) {
        const home = join(scratch, "inside");
        await mkdir(home, { recursive: true, mode: 0o700 });
        inside = startInsideService({
          socketPath: join(options.sockets, INSIDE_SOCKET),
          workspace: main,
          cwd: agentDir,
          env: agentEnvironment({
            runner: env,
            pass: [],
            adapter: {},
            settings: share.settings,
            egress: egress.env,
            metadataUrl: server.url,
            tmpdir: home,
            marker: randomHex(16),
            fallbackHome: home,
          }),
          progress,
        });
      }
    } catch (error) {
      fail(error);
      return await send(options.out, files, finalResult(draft));
    }

    // Step 4: whatever becomes of the agent, step 5 still runs, so its commits are sent.
    let stopped = stop.aborted;
    if (stopped) {
      progress("told to stop before the agent started: it does not run");
    } else {
      try {
        const agentStep = trace.start("agent step");
        const holdsForDebug = share.settings.debug === true && inside !== undefined;
        let closing: Promise<void>;
        ({ stopped, closing } = await runAgentStep(
          {
            ...options,
            share,
            scratch,
            agentDir,
            metadataUrl: server.url,
            egressEnv: egress.env,
            relayUrl: egress.relayUrl,
            env,
            stop,
            messageFiles: {
              messages: join(options.share, SHARE_FILES.messages),
              agentDir,
              workspace: main,
            },
            checkpoints: {
              shareDir: options.share,
              workspace: main,
              base: prepared.base,
              identity: identityOf(share.settings),
              gitEnv,
              // A debug hold takes the last checkpoint before step 5, so it cannot wait for it.
              ...(holdsForDebug ? {} : { finished }),
            },
          },
          draft,
          files,
        ));
        agentClosing = settled(closing.finally(agentStep));
      } catch (error) {
        fail(error);
      }
    }
    const agentClosed = async (): Promise<void> => {
      const closed = await agentClosing;
      agentClosing = undefined;
      if (closed?.ok === false) fail(closed.error);
    };
    if (!stopped && share.settings.debug === true && inside !== undefined) {
      // The last checkpoint holds the agent's end, not what a person changes during the hold.
      await agentClosed();
      // --debug: the workspace stays as the agent left it, open to exec, shell and cp, until
      // `warden stop` or the deadline (the host's SIGTERM); what a person changed is committed
      // with the agent's work below.
      progress("debug: the agent has ended; serving until `warden stop` or the deadline");
      const held = await Promise.race([
        inside.released.then(() => "released" as const),
        new Promise<"stopped">((resolve) => {
          if (stop.aborted) resolve("stopped");
          stop.addEventListener(
            "abort",
            () => {
              resolve("stopped");
            },
            { once: true },
          );
        }),
      ]);
      stopped = held === "stopped";
      progress(stopped ? "debug: told to stop during the hold" : "debug: released by warden stop");
    }
    inside?.close();
    if (stopped) {
      fail(stop.reason instanceof Error ? stop.reason : new StoppedError("the runner was stopped"));
    }

    // Step 5 ignores the stop signal: it is what sends the agent's work, and has its deadline.
    const report: FinishReport = { leftovers: false, warnings: draft.warnings };
    const finishDeadline = deadline("finish", new AbortController().signal);
    try {
      await trace.around(
        "finish git",
        finishGit(
          {
            git: { workspace: main, env: gitEnv, signal: finishDeadline.signal, trace },
            base: prepared.base,
            config: prepared.config,
            scratch,
            progress,
          },
          report,
        ),
      );
    } catch (error) {
      fail(error);
    }
    finishedIs(finishedCheckpoint(report, prepared.base));
    try {
      const finishedBound = await trace.around(
        "finish the bound workspaces",
        finishBound({
          prepared: bound,
          git: { env: gitEnv, signal: finishDeadline.signal, trace },
          scratch,
          warnings: draft.warnings,
          progress,
          fail,
        }),
      );
      if (finishedBound.length > 0) {
        draft.workspaces = finishedBound.map(({ name, base, head, leftovers }) => ({
          name,
          base,
          leftovers,
          ...(head === undefined ? {} : { head }),
        }));
      }
      for (const { name, bundle } of finishedBound) {
        if (bundle !== undefined) files.push({ name: workspaceBundleName(name), path: bundle });
      }
    } finally {
      finishDeadline.clear();
    }
    await agentClosed();
    if (report.head !== undefined) draft.head = report.head;
    draft.leftovers = report.leftovers;
    if (report.bundle !== undefined)
      files.push({ name: RESULT_FILES.changes, path: report.bundle });

    return await trace.around("send the results", send(options.out, files, finalResult(draft)));
  } finally {
    // Only a failure that skipped step 5 leaves the checkpoint running: it ends before the scratch
    // directory it works in is removed.
    finishedIs(undefined);
    await agentClosing;
    const closing = trace.start("close and clean up");
    inside?.close();
    await egress?.close();
    await server?.close();
    if (ownScratch) await rm(scratch, { recursive: true, force: true });
    closing();
  }
}

/** Step 6: the archive, result.json last. */
async function send(
  out: Writable,
  files: readonly ResultsFile[],
  result: Result,
): Promise<TaskOutcome> {
  await writeResults(out, files, result);
  return { result, exitCode: result.error === undefined ? 0 : 1 };
}
