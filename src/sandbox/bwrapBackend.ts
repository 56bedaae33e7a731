// The bwrap backend: Linux namespaces through bubblewrap, the default on Linux.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { errorMessage, NO_TRACE, settled, unwrap, type PhaseTrace } from "../lang/index.js";
import { cleanLine } from "../protocol/index.js";
import { checkPathsExist } from "./checkPaths.js";
import { findRunnerPid } from "./findRunner.js";
import { probeBwrapHost, type BwrapHost, type BwrapHostOptions } from "./bwrapHost.js";
import { probeCgroupHost, type CgroupHost, type CgroupHostOptions } from "./cgroupHost.js";
import { BoundUnavailableError, SandboxStartError, SandboxUnavailableError } from "./errors.js";
import { grantAccess } from "./grantAccess.js";
import { describeIdentity } from "./sandboxIdentity.js";
import { DENIED_SYSCALLS } from "./syscallTable.js";
import { diskBoundReached, mib, type SandboxBound } from "./sandboxBounds.js";
import { WorkspaceMeter } from "./workspaceMeter.js";
import { planBwrap, type BwrapPlan } from "./planBwrap.js";
import { planCgroup, type CgroupPlan } from "./planCgroup.js";
import { BLOCK_FD, INFO_FD, renderBwrap } from "./renderBwrap.js";
import { StartedSandbox } from "./runningSandbox.js";
import type { BackendCheck, RunningSandbox, SandboxBackend } from "./sandboxBackend.js";
import { SandboxCgroup } from "./sandboxCgroup.js";
import type { SandboxCommand } from "./sandboxCommand.js";
import { SANDBOX_LIMITS } from "./limits.js";
import { activeLimits, type SandboxLimits, type SandboxRequest } from "./sandboxRequest.js";
import { bwrapCheckKey } from "./bwrapCheckKey.js";
import { spawnCommand, stderrUntilExit, type SpawnedCommand } from "./spawnCommand.js";

const run = promisify(execFile);

/** --disable-userns and --perms on tmpfs came with 0.8.0. */
const MIN_VERSION = [0, 8, 0] as const;
/** The random part of a start's cgroup name: 8 hex digits never meet twice for one task. */
const CGROUP_NONCE_BYTES = 4;

const INSTALL_FIX =
  "install bubblewrap 0.8.0 or newer: `apt-get install bubblewrap` (Debian, Ubuntu), " +
  "`dnf install bubblewrap` (Fedora), `pacman -S bubblewrap` (Arch)";

const USERNS_FIX =
  "allow unprivileged user namespaces: `sysctl -w kernel.unprivileged_userns_clone=1` (Debian), " +
  "or on Ubuntu 24.04 and later `sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` or an " +
  "AppArmor profile that lets bwrap use them";

/** How to let warden bound a sandbox, or to ask for no bound. */
export const BOUNDS_FIX =
  "run warden as root, or in a cgroup delegated to you (`systemd-run --user --scope -p Delegate=yes warden ...`); " +
  "or ask for no bound with `--memory 0` / `--max-processes 0`";

/**
 * The trial sandbox's program: `cat` of its own /proc status, in which the host reads whether
 * the kernel applies a seccomp filter to it (the filter is inherited across exec, so cat has the
 * runner's). A program this small keeps the trial to bubblewrap's own cost; Node would add the
 * time it takes to start. The shell only execs cat, leaving out the runner's options that the
 * sandbox appends (they become the script's unused positional parameters).
 */
const TRIAL_PROGRAM = {
  program: "/bin/sh",
  args: ["-c", "exec cat /proc/self/status", "trial"],
} as const;

/** The line of /proc/<pid>/status of a process under a seccomp filter (mode 2, SECCOMP_MODE_FILTER). */
const FILTERED_STATUS = /^Seccomp:\s+2$/m;

const TRIAL_FIX =
  "run `bwrap --unshare-all --unshare-user --uid 1000 --ro-bind / / true` to see bubblewrap's own " +
  "error, and report it if it works while warden's trial does not";

export interface BwrapBackendOptions extends BwrapHostOptions, CgroupHostOptions {
  /** The host's layout, for tests of the plan; probed from this machine by default. */
  host?: BwrapHost;
  /** Measures the running sandboxes' workspaces; one of the backend's own by default. */
  meter?: WorkspaceMeter;
}

function parseVersion(text: string): number[] | null {
  const match = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return match === null ? null : match.slice(1, 4).map(Number);
}

function atLeast(version: number[], min: readonly number[]): boolean {
  for (let i = 0; i < min.length; i++) {
    const v = version[i] ?? 0;
    const m = min[i] ?? 0;
    if (v !== m) return v > m;
  }
  return true;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += String(chunk);
  return text;
}

/**
 * Reads bwrap's --info-fd report; null when bwrap ended without making the sandbox. The report
 * is taken as soon as it parses, not at the end of the stream: a root warden's first stage and
 * its waiter hold copies of the descriptor for as long as the sandbox runs.
 */
async function readChildPid(spawned: SpawnedCommand): Promise<number | null> {
  const info = spawned.fds.get(INFO_FD);
  if (info === undefined) return null;
  return new Promise<number | null>((resolve) => {
    let text = "";
    const finish = (pid: number | null): void => {
      clearTimeout(timer);
      info.off("data", onData);
      info.off("end", onEnd);
      info.off("close", onEnd);
      resolve(pid);
    };
    const timer = setTimeout(() => {
      finish(null);
    }, SANDBOX_LIMITS.setupMs);
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("utf8");
      const pid = childPidOf(text);
      if (pid !== undefined) finish(pid);
    };
    const onEnd = (): void => {
      finish(childPidOf(text) ?? null);
    };
    info.on("data", onData);
    info.once("end", onEnd);
    info.once("close", onEnd);
  });
}

/** The child pid of a whole report; undefined while the report is still incomplete. */
function childPidOf(text: string): number | null | undefined {
  let parsed: { "child-pid"?: unknown };
  try {
    parsed = JSON.parse(text) as { "child-pid"?: unknown };
  } catch {
    return undefined;
  }
  const pid = parsed["child-pid"];
  return typeof pid === "number" && Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

function killQuietly(pid: number): void {
  try {
    process.kill(pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

export class BwrapBackend implements SandboxBackend<BwrapPlan> {
  readonly name = "bwrap";
  readonly isolated = true;
  private readonly host: BwrapHost;
  private cgroups: Promise<CgroupHost> | undefined;
  private readonly meter: WorkspaceMeter;

  constructor(private readonly options: BwrapBackendOptions = {}) {
    this.host = options.host ?? probeBwrapHost(options);
    this.meter = options.meter ?? new WorkspaceMeter();
  }

  plan(request: SandboxRequest): BwrapPlan {
    return planBwrap(request, this.host);
  }

  render(plan: BwrapPlan): SandboxCommand {
    return renderBwrap(plan);
  }

  async checkBounds(limits: SandboxLimits): Promise<void> {
    await this.cgroupPlan("check", activeLimits(limits));
  }

  /** The cgroups that would hold `limits`; a bound this host cannot apply is refused. */
  private async cgroupPlan(taskId: string, limits: SandboxLimits): Promise<CgroupPlan> {
    const cgroupPlan = planCgroup(taskId, limits, await this.cgroupHost());
    if (cgroupPlan.unavailable.length > 0) {
      throw new BoundUnavailableError(
        `this machine cannot apply ${cgroupPlan.unavailable.join("; ")}`,
        { hint: BOUNDS_FIX },
      );
    }
    return cgroupPlan;
  }

  /** Where limits can be applied, probed once per backend. */
  private cgroupHost(): Promise<CgroupHost> {
    this.cgroups ??= probeCgroupHost(this.options);
    return this.cgroups;
  }

  checkKey(): Promise<string | undefined> {
    return bwrapCheckKey(this.host);
  }

  async check(): Promise<BackendCheck> {
    const bwrap = this.host.bwrap;
    if (bwrap === null)
      return { ok: false, why: "bubblewrap (bwrap) is not installed", fix: INSTALL_FIX };
    // The version, the trial sandbox and the cgroups are looked at side by side; what they find
    // is judged in that order, so a bubblewrap too old for the trial's options is refused for
    // its version, whatever its trial said.
    const asked = run(bwrap, ["--version"]);
    const trying = this.trialRun();
    this.cgroupHost().catch(() => undefined);
    let versionText: string;
    try {
      versionText = (await asked).stdout.trim();
    } catch (error) {
      await trying;
      return {
        ok: false,
        why: `${bwrap} --version failed: ${cleanLine(String(error))}`,
        fix: INSTALL_FIX,
      };
    }
    const version = parseVersion(versionText);
    if (version === null || !atLeast(version, MIN_VERSION)) {
      await trying;
      return { ok: false, why: `${cleanLine(versionText)} is older than 0.8.0`, fix: INSTALL_FIX };
    }
    const trial = await trying;
    if (trial === "no seccomp") {
      return {
        ok: false,
        why: "a trial sandbox ran without its seccomp filter",
        fix: "report this: bubblewrap took the filter but the kernel did not apply it",
      };
    }
    if (trial !== null) {
      const userns = /namespace|uid.map|Permission denied|Operation not permitted/i.test(trial);
      return { ok: false, why: trial, fix: userns ? USERNS_FIX : TRIAL_FIX };
    }
    const cgroups = await this.cgroupHost();
    const limit = (what: string, site: CgroupHost["memory"]): string =>
      site.ok ? `${what} limits via cgroup v${site.version}` : `no ${what} limits (${site.why})`;
    const limits = `${limit("memory", cgroups.memory)}; ${limit("process", cgroups.pids)}`;
    const bounded = cgroups.memory.ok && cgroups.pids.ok;
    const bounds = bounded
      ? "every task has default bounds"
      : `the default bounds cannot be applied here, so tasks need \`--memory 0 --max-processes 0\` to run: ${BOUNDS_FIX}`;
    const filter = `a seccomp filter refuses ${DENIED_SYSCALLS.length} system calls`;
    return {
      ok: true,
      detail: `${versionText} at ${bwrap}; ${describeIdentity(this.host.identity)}; ${filter}; ${limits}; ${bounds}`,
    };
  }

  /**
   * Starts a real sandbox running TRIAL_PROGRAM; null when it works and its seccomp filter is in
   * force, "no seccomp" when it ran without it, else what went wrong.
   */
  private async trialRun(): Promise<string | null> {
    const dir = await mkdtemp(join(tmpdir(), "warden-check-"));
    try {
      await mkdir(join(dir, "share"));
      await mkdir(join(dir, "workspace"));
      const sandbox = await this.startChecked({
        taskId: "doctor",
        share: join(dir, "share"),
        workspace: join(dir, "workspace"),
        sockets: [],
        runner: { program: TRIAL_PROGRAM.program, args: [...TRIAL_PROGRAM.args] },
        readOnlyBinds: [],
        env: {},
        // The trial is of bubblewrap alone: the check reports the cgroups on their own.
        limits: { memoryBytes: 0, processes: 0, diskBytes: 0 },
      });
      const [out, err, exit] = await Promise.all([
        readAll(sandbox.stdout),
        readAll(sandbox.stderr),
        sandbox.exit,
      ]);
      if (exit.code === 0 && FILTERED_STATUS.test(out)) return null;
      if (exit.code === 0) return "no seccomp";
      return `a trial sandbox failed (exit ${String(exit.code ?? exit.signal)}): ${cleanLine(err.trim())}`;
    } catch (error) {
      return `a trial sandbox failed: ${cleanLine(errorMessage(error))}`;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async start(request: SandboxRequest): Promise<RunningSandbox> {
    try {
      return await this.startChecked(request);
    } catch (error) {
      if (!(error instanceof SandboxStartError)) throw error;
      // bwrap itself failed: say whether this machine can run bwrap at all, which is the
      // clearer refusal, or else what bwrap said about this one sandbox.
      const check = await this.check();
      if (!check.ok)
        throw new SandboxUnavailableError(check.why, { hint: check.fix, cause: error });
      throw error;
    }
  }

  private async startChecked(request: SandboxRequest): Promise<RunningSandbox> {
    const plan = this.plan(request);
    if (this.host.bwrap === null) {
      throw new SandboxUnavailableError("bubblewrap (bwrap) is not installed", {
        hint: INSTALL_FIX,
      });
    }
    const trace = request.trace ?? NO_TRACE;
    await checkPathsExist(request);
    const command = this.render(plan);
    const cgroup = await this.makeCgroup(plan, trace);
    try {
      await grantAccess(plan);
    } catch (error) {
      await cgroup?.remove();
      throw error;
    }
    // From the spawn until bwrap reports the first process's pid, once it has made the
    // namespaces and mounts.
    const endNamespaces = trace.start("sandbox: bwrap makes the namespaces");
    let spawned: SpawnedCommand;
    try {
      spawned = await spawnCommand(command, { detached: false });
    } catch (error) {
      await cgroup?.remove();
      throw new SandboxUnavailableError(
        `bubblewrap could not be run: ${cleanLine(String(error))}`,
        {
          hint: INSTALL_FIX,
        },
      );
    }
    for (const f of command.fds) {
      if (f.role === "data") spawned.fds.get(f.fd)?.end(f.text);
      if (f.role === "bytes") spawned.fds.get(f.fd)?.end(f.bytes);
    }
    // bwrap's own process joins the cgroup while it makes the namespaces, so the two overlap:
    // a process it forks after the join (the sandbox's first, as a rule) is inside from birth.
    const endJoin = trace.start("sandbox: join its cgroup");
    const joined = cgroup === null ? undefined : settled(cgroup.add(spawned.pid));
    const initPid = await readChildPid(spawned);
    endNamespaces();
    if (initPid === null) {
      await joined;
      killQuietly(spawned.pid);
      const text = await stderrUntilExit(spawned, SANDBOX_LIMITS.stderrAfterExitMs);
      await cgroup?.remove();
      throw new SandboxStartError(
        `bubblewrap could not make the sandbox: ${cleanLine(text.trim())}`,
        {
          hint: "run `warden doctor` to see whether bubblewrap works on this machine",
        },
      );
    }
    if (cgroup !== null) {
      try {
        if (joined !== undefined) unwrap(await joined);
        // bwrap may have forked before its join took effect: then the first process joins on
        // its own. Nothing in the sandbox runs before the go below, in the cgroup either way.
        if (!(await cgroup.holds(initPid))) await cgroup.add(initPid);
        endJoin();
      } catch (error) {
        killQuietly(initPid);
        killQuietly(spawned.pid);
        await spawned.exited;
        await cgroup.remove();
        throw new BoundUnavailableError(
          `the sandbox's bounds could not be applied: joining its cgroup failed (${cleanLine(String(error))})`,
          { hint: BOUNDS_FIX },
        );
      }
    }
    // Let the runner start, now that everything it forks is inside the cgroup.
    const block = spawned.fds.get(BLOCK_FD);
    block?.end("go");
    const { limits } = plan;
    const control = {
      findRunner: () => findRunnerPid(initPid),
      killAll: async () => {
        // Killing the sandbox's first process ends its PID namespace, and everything in it.
        killQuietly(initPid);
        killQuietly(spawned.pid);
        await cgroup?.killAll();
      },
      bounds: async (ended: boolean): Promise<SandboxBound | null> => {
        if (limits.memoryBytes !== undefined && (await cgroup?.outOfMemory()) === true)
          return { bound: "memory", detail: `the memory bound of ${mib(limits.memoryBytes)}` };
        if (limits.processes !== undefined && (await cgroup?.processLimitReached()) === true)
          return { bound: "processes", detail: `the bound of ${limits.processes} processes` };
        if (limits.diskBytes !== undefined)
          return diskBoundReached(request.workspace, limits.diskBytes, this.meter, ended);
        return null;
      },
      cleanup: async () => {
        if (cgroup === null) return { outOfMemory: false, warnings: [] };
        const outOfMemory = await cgroup.outOfMemory();
        return { outOfMemory, warnings: await cgroup.remove() };
      },
    };
    return new StartedSandbox(spawned, [], control);
  }

  /**
   * The sandbox's cgroup with its memory and process bounds; null when it has neither. A bound
   * this host cannot apply is an error, never a silent downgrade.
   */
  private async makeCgroup(plan: BwrapPlan, trace: PhaseTrace): Promise<SandboxCgroup | null> {
    // A sandbox without bounds has no cgroup, and its trace no cgroup step.
    if (plan.limits.memoryBytes === undefined && plan.limits.processes === undefined) return null;
    const making = trace.start("sandbox: make its cgroup");
    // Each start has a cgroup of its own: two runs of one task can overlap (a fleet worker cut
    // off while another runs the task, an attach after a crash), and one's removal of its cgroup
    // must never take the other's.
    const name = `${plan.taskId}-${randomBytes(CGROUP_NONCE_BYTES).toString("hex")}`;
    const cgroupPlan = await this.cgroupPlan(name, plan.limits);
    const made = await SandboxCgroup.create(cgroupPlan);
    making();
    if (made.failures.length > 0) {
      await made.cgroup.remove();
      throw new BoundUnavailableError(made.failures.join("; "), { hint: BOUNDS_FIX });
    }
    return made.cgroup;
  }
}
