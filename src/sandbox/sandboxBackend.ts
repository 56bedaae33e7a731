// The one interface every isolation kind is used through.
import type { Readable } from "node:stream";
import type { BwrapPlan } from "./planBwrap.js";
import type { NonePlan } from "./planNone.js";
import type { SandboxCommand } from "./sandboxCommand.js";
import type { SandboxBound } from "./sandboxBounds.js";
import type { SandboxLimits, SandboxRequest } from "./sandboxRequest.js";

export type SandboxName = "bwrap" | "none";

export type SandboxPlan = BwrapPlan | NonePlan;

/** Whether a backend can run here: for `warden doctor`, and for a clear refusal at start. */
export type BackendCheck = { ok: true; detail: string } | { ok: false; why: string; fix: string };

export interface SandboxExit {
  /**
   * The runner's exit code. bwrap reports a runner killed by signal N as 128 + N, so `signal`
   * is set only when the sandbox itself was killed (by stop() after its grace).
   */
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The kernel killed a process of the sandbox for going over its memory limit. */
  outOfMemory: boolean;
  /** The first bound the host saw the sandbox reach, if any. */
  bound: SandboxBound | null;
}

export interface RunningSandbox {
  /** The host pid of the process start() spawned: bwrap, or the runner itself for `none`. */
  readonly pid: number;
  /** The runner's stdout (the results archive). */
  readonly stdout: Readable;
  /** The runner's stderr (progress), after a line of warden's own for `none`. */
  readonly stderr: Readable;
  /** Settles once the sandbox has ended and its cgroups and temporary files are gone. */
  readonly exit: Promise<SandboxExit>;
  /** What was asked for and is not in force (a limit the host cannot apply, no isolation). */
  readonly warnings: readonly string[];
  /**
   * SIGTERM to the runner, so it stops its agent and sends what it has; after `graceMs`, SIGKILL
   * to everything in the sandbox. Settles when nothing of the sandbox runs any more.
   */
  stop(graceMs: number): Promise<void>;
  /**
   * Calls `listener` once, as soon as the host sees the sandbox reach one of its bounds (memory,
   * processes, disk); the host then stops it. Never called for a sandbox without bounds.
   */
  onBound(listener: (bound: SandboxBound) => void): void;
}

export interface SandboxBackend<P extends SandboxPlan = SandboxPlan> {
  readonly name: SandboxName;
  readonly isolated: boolean;
  check(): Promise<BackendCheck>;
  /**
   * What a pass of check() depends on, as one text, so that a pass one process made can serve
   * another (SandboxCheckMemo's kept passes) while the text is the same; undefined, or no such
   * method, when a pass is never kept.
   */
  checkKey?(): Promise<string | undefined>;
  /**
   * Refuses, with BoundUnavailableError and a hint, bounds this machine cannot apply (the
   * defaults where `limits` gives none), so a task can be refused before it is attached.
   */
  checkBounds(limits: SandboxLimits): Promise<void>;
  /** Pure: the typed plan of the sandbox for this request; refuses a bad request. */
  plan(request: SandboxRequest): P;
  /** Pure: the command that makes the planned sandbox. */
  render(plan: P): SandboxCommand;
  /** Plans, renders and starts the sandbox. */
  start(request: SandboxRequest): Promise<RunningSandbox>;
}
