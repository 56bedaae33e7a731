// The none backend: no isolation at all, for development, and said so loudly.
import { mkdir, rm, symlink } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { realpathSync } from "node:fs";
import { cleanLine } from "../protocol/index.js";
import { checkPathsExist } from "./checkPaths.js";
import { SandboxStartError } from "./errors.js";
import {
  NOT_ISOLATED_WARNING,
  planNone,
  renderNone,
  type NoneHost,
  type NonePlan,
} from "./planNone.js";
import { StartedSandbox } from "./runningSandbox.js";
import type { BackendCheck, RunningSandbox, SandboxBackend } from "./sandboxBackend.js";
import type { SandboxCommand } from "./sandboxCommand.js";
import { socketFileName } from "./sandboxPaths.js";
import type { SandboxRequest } from "./sandboxRequest.js";
import { spawnCommand, type SpawnedCommand } from "./spawnCommand.js";

export interface NoneBackendOptions {
  /** The host's facts, for tests of the plan; read from this machine by default. */
  host?: NoneHost;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    // The runner leads a process group of its own: a negative pid signals all of it.
    process.kill(-pid, signal);
  } catch {
    // The group is empty already.
  }
}

/** Makes the sandbox's own directory afresh: whatever an earlier run left there goes first. */
async function prepare(plan: NonePlan): Promise<void> {
  await rm(plan.root, { recursive: true, force: true });
  await mkdir(plan.root, { mode: 0o700 });
  for (const dir of [plan.scratch, plan.home, plan.tmp, plan.socketDir]) {
    await mkdir(dir, { mode: 0o700 });
  }
  for (const socket of plan.sockets) {
    await symlink(socket.path, join(plan.socketDir, socketFileName(socket.name)));
  }
}

export class NoneBackend implements SandboxBackend<NonePlan> {
  readonly name = "none";
  readonly isolated = false;
  private readonly host: NoneHost;

  constructor(options: NoneBackendOptions = {}) {
    this.host = options.host ?? {
      tmpDir: tmpdir(),
      home: homedir(),
      nodeDir: dirname(realpathSync(process.execPath)),
    };
  }

  plan(request: SandboxRequest): NonePlan {
    return planNone(request, this.host);
  }

  render(plan: NonePlan): SandboxCommand {
    return renderNone(plan);
  }

  /** This backend applies no bounds and says so at start: nothing here to refuse. */
  checkBounds(): Promise<void> {
    return Promise.resolve();
  }

  check(): Promise<BackendCheck> {
    return Promise.resolve({
      ok: true,
      detail: "runs the runner as a plain child process: NO isolation, for development only",
    });
  }

  async start(request: SandboxRequest): Promise<RunningSandbox> {
    const plan = this.plan(request);
    await checkPathsExist(request);
    await prepare(plan);
    let spawned: SpawnedCommand;
    try {
      spawned = await spawnCommand(this.render(plan), { detached: true });
    } catch (error) {
      await rm(plan.root, { recursive: true, force: true });
      throw new SandboxStartError(
        `the runner ${plan.command.program} could not be started: ${cleanLine(String(error))}`,
        {
          hint: "check that the runner's program exists and is executable",
        },
      );
    }
    const warnings = [NOT_ISOLATED_WARNING];
    if (Object.keys(plan.limits).length > 0) {
      warnings.push("the sandbox `none` applies no memory, process or disk bounds");
    }
    const pid = spawned.pid;
    const control = {
      findRunner: () => Promise.resolve(pid),
      bounds: () => Promise.resolve(null),
      killAll: () => {
        signalGroup(pid, "SIGKILL");
        return Promise.resolve();
      },
      cleanup: async () => {
        // Whatever the runner left in its group (not a daemon that left the group) ends with it.
        signalGroup(pid, "SIGKILL");
        await rm(plan.root, { recursive: true, force: true });
        return { outOfMemory: false, warnings: [] };
      },
    };
    return new StartedSandbox(spawned, warnings, control);
  }
}
