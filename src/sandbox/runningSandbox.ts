// A started sandbox: its streams, its exit, and stopping it politely, then for certain.
import type { Readable } from "node:stream";
import { within } from "../lang/index.js";
import type { RunningSandbox, SandboxExit } from "./sandboxBackend.js";
import type { SandboxBound } from "./sandboxBounds.js";
import { SANDBOX_LIMITS } from "./limits.js";

/** What differs between backends once the process runs. */
export interface SandboxControl {
  /** The runner's host pid, to send SIGTERM to; null when it cannot be found (not yet forked). */
  findRunner(): Promise<number | null>;
  /** SIGKILL to every process of the sandbox. */
  killAll(): Promise<void>;
  /**
   * The first bound the sandbox has reached, looked at now; null for none. `ended` says the
   * sandbox has exited, so nothing changes what is measured.
   */
  bounds(ended: boolean): Promise<SandboxBound | null>;
  /** After the exit: remove cgroups and temporary files; returns what could not be removed. */
  cleanup(): Promise<{ outOfMemory: boolean; warnings: string[] }>;
}

export interface StartedProcess {
  pid: number;
  stdout: Readable;
  stderr: Readable;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // The process ended in the meantime: nothing to stop.
  }
}

export class StartedSandbox implements RunningSandbox {
  readonly pid: number;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly exit: Promise<SandboxExit>;
  readonly warnings: string[];
  private ended = false;
  private bound: SandboxBound | null = null;
  private readonly listeners: ((bound: SandboxBound) => void)[] = [];
  private readonly boundTimer: NodeJS.Timeout;
  private measuring = false;

  /** Read through a method: it changes while stop() awaits. */
  private hasEnded(): boolean {
    return this.ended;
  }

  constructor(
    started: StartedProcess,
    warnings: string[],
    private readonly control: SandboxControl,
  ) {
    this.pid = started.pid;
    this.stdout = started.stdout;
    this.stderr = started.stderr;
    this.warnings = warnings;
    this.boundTimer = setInterval(() => {
      void this.lookAtBounds();
    }, SANDBOX_LIMITS.boundPollMs);
    this.exit = started.exited.then(async ({ code, signal }) => {
      this.ended = true;
      clearInterval(this.boundTimer);
      // A bound reached in the last moments (the kill that ended the runner) still counts.
      this.record(await control.bounds(true).catch(() => null));
      const cleaned = await control.cleanup();
      this.warnings.push(...cleaned.warnings);
      const outOfMemory = cleaned.outOfMemory || this.bound?.bound === "memory";
      return { code, signal, outOfMemory, bound: this.bound };
    });
  }

  onBound(listener: (bound: SandboxBound) => void): void {
    if (this.bound !== null) listener(this.bound);
    else this.listeners.push(listener);
  }

  /** One look at the bounds; a look still running (a large workspace) is not doubled. */
  private async lookAtBounds(): Promise<void> {
    if (this.measuring || this.bound !== null) return;
    this.measuring = true;
    try {
      const seen = await this.control.bounds(false).catch(() => null);
      if (!this.hasEnded()) this.record(seen);
    } finally {
      this.measuring = false;
    }
  }

  private record(seen: SandboxBound | null): void {
    if (seen === null || this.bound !== null) return;
    this.bound = seen;
    for (const listener of this.listeners.splice(0)) listener(seen);
  }

  async stop(graceMs: number): Promise<void> {
    if (this.ended) {
      await this.exit;
      return;
    }
    const runner = await this.control.findRunner();
    let stopped = false;
    if (runner !== null && !this.hasEnded()) {
      sendSignal(runner, "SIGTERM");
      stopped = (await within(this.exit, graceMs)) !== undefined;
    }
    if (!stopped && !this.hasEnded()) await this.control.killAll();
    await this.exit;
  }
}
