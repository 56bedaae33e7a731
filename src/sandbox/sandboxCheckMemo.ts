// A backend's check (for bwrap, a whole trial sandbox) remembered for a while by a process that
// starts many sandboxes: `run` checks before it writes a task and again before it attaches, and
// a process that runs tasks side by side would otherwise make one trial sandbox per task.
import type { BackendCheck, SandboxBackend, SandboxName } from "./sandboxBackend.js";
import { SANDBOX_LIMITS } from "./limits.js";

interface Remembered {
  readonly at: number;
  readonly check: Promise<BackendCheck>;
}

/**
 * Remembers each backend's passed check for SANDBOX_LIMITS.checkReuseMs. A check that fails is
 * never remembered, so a machine that cannot run a sandbox is asked again every time; callers
 * that ask while a check runs share it instead of starting another.
 */
export class SandboxCheckMemo {
  readonly #remembered = new Map<SandboxName, Remembered>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxAgeMs: number = SANDBOX_LIMITS.checkReuseMs,
  ) {}

  /** The backend's check: a remembered pass, the check already running, or a new one. */
  check(backend: SandboxBackend): Promise<BackendCheck> {
    const at = this.now();
    const remembered = this.#remembered.get(backend.name);
    if (remembered !== undefined && at - remembered.at <= this.maxAgeMs) return remembered.check;
    const check = backend.check().then(
      (result) => {
        if (!result.ok) this.forget(backend.name, check);
        return result;
      },
      (error: unknown) => {
        this.forget(backend.name, check);
        throw error;
      },
    );
    this.#remembered.set(backend.name, { at, check });
    return check;
  }

  private forget(name: SandboxName, check: Promise<BackendCheck>): void {
    if (this.#remembered.get(name)?.check === check) this.#remembered.delete(name);
  }
}
