// A backend's check (for bwrap, a whole trial sandbox) remembered for a while by a process that
// starts many sandboxes: `run` checks before it writes a task and again before it attaches, and
// a process that runs tasks side by side would otherwise make one trial sandbox per task. With
// kept passes, one process's pass also serves the next (`run` after `run`, the background run of
// `run --detach`), for as long as a pass is remembered at all.
import type { BackendCheck, SandboxBackend, SandboxName } from "./sandboxBackend.js";
import { SANDBOX_LIMITS } from "./limits.js";

/** A passed check: when it was made, and what it found. */
export interface CheckPass {
  readonly at: number;
  readonly detail: string;
}

/**
 * Where passes are kept between processes, each under the backend's key (checkKey): a pass read
 * back under another key is not a pass. Failures of its own are the memo's to ignore.
 */
export interface CheckPasses {
  read(name: SandboxName, key: string): Promise<CheckPass | undefined>;
  keep(name: SandboxName, key: string, pass: CheckPass): Promise<void>;
}

export interface CheckMemoOptions {
  now?: () => number;
  maxAgeMs?: number;
  /** Passes kept by other processes, and where this one keeps its own. */
  passes?: CheckPasses;
}

interface Remembered {
  /** The check's outcome, and when the check (or the kept pass it took) was made. */
  readonly check: Promise<{ result: BackendCheck; at: number }>;
}

/**
 * Remembers each backend's passed check for SANDBOX_LIMITS.checkReuseMs from when it was made. A
 * check that fails is never remembered or kept, so a machine that cannot run a sandbox is asked
 * again every time; callers that ask while a check runs share it instead of starting another.
 */
export class SandboxCheckMemo {
  readonly #remembered = new Map<SandboxName, Remembered>();
  readonly #now: () => number;
  readonly #maxAgeMs: number;
  readonly #passes: CheckPasses | undefined;

  constructor(options: CheckMemoOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#maxAgeMs = options.maxAgeMs ?? SANDBOX_LIMITS.checkReuseMs;
    this.#passes = options.passes;
  }

  /** The backend's check: a remembered or kept pass, the check already running, or a new one. */
  async check(backend: SandboxBackend): Promise<BackendCheck> {
    const asked = this.#now();
    const remembered = this.#remembered.get(backend.name);
    if (remembered !== undefined) {
      // Judged by when it was asked for: a check that was running then is fresh, however long
      // it took.
      const { result, at } = await remembered.check;
      if (this.#fresh(at, asked)) return result;
      this.#forget(backend.name, remembered.check);
      return this.check(backend);
    }
    const check = this.#checked(backend, asked).then(
      (made) => {
        if (!made.result.ok) this.#forget(backend.name, check);
        return made;
      },
      (error: unknown) => {
        this.#forget(backend.name, check);
        throw error;
      },
    );
    this.#remembered.set(backend.name, { check });
    return (await check).result;
  }

  #fresh(at: number, now: number): boolean {
    return at <= now && now - at <= this.#maxAgeMs;
  }

  /** A kept pass under the backend's key, or else the check itself (kept when it passes). */
  async #checked(
    backend: SandboxBackend,
    asked: number,
  ): Promise<{ result: BackendCheck; at: number }> {
    const passes = this.#passes;
    const key =
      passes === undefined ? undefined : await backend.checkKey?.().catch(() => undefined);
    if (passes !== undefined && key !== undefined) {
      const kept = await passes.read(backend.name, key).catch(() => undefined);
      if (kept !== undefined && this.#fresh(kept.at, asked)) {
        return { result: { ok: true, detail: kept.detail }, at: kept.at };
      }
    }
    const result = await backend.check();
    if (result.ok && passes !== undefined && key !== undefined) {
      await passes.keep(backend.name, key, { at: asked, detail: result.detail }).catch(() => {
        // A pass that cannot be kept costs the next process a check, nothing more.
      });
    }
    return { result, at: asked };
  }

  #forget(name: SandboxName, check: Remembered["check"]): void {
    if (this.#remembered.get(name)?.check === check) this.#remembered.delete(name);
  }
}
