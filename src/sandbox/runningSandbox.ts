// A started sandbox: its streams, its exit, and stopping it politely, then for certain.
import type { Readable } from "node:stream";
import type { RunningSandbox, SandboxExit } from "./sandboxBackend.js";

/** What differs between backends once the process runs. */
export interface SandboxControl {
  /** The runner's host pid, to send SIGTERM to; null when it cannot be found (not yet forked). */
  findRunner(): Promise<number | null>;
  /** SIGKILL to every process of the sandbox. */
  killAll(): Promise<void>;
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
    this.exit = started.exited.then(async ({ code, signal }) => {
      this.ended = true;
      const cleaned = await control.cleanup();
      this.warnings.push(...cleaned.warnings);
      return { code, signal, outOfMemory: cleaned.outOfMemory };
    });
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
      let timer: NodeJS.Timeout | undefined;
      stopped = await Promise.race([
        this.exit.then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => {
            resolve(false);
          }, graceMs);
        }),
      ]);
      clearTimeout(timer);
    }
    if (!stopped && !this.hasEnded()) await this.control.killAll();
    await this.exit;
  }
}
