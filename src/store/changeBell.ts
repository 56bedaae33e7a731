// Wakes a reader when something in a directory changes: fs.watch (inotify on Linux) rings at
// once, and a slow poll rings anyway in case a notification is missed (network file systems).
// Without fs.watch it polls fast instead. Rings are remembered, so none is lost between waits.
import { watch, type FSWatcher } from "node:fs";
import { STORE_TIMING } from "./limits.js";

export class ChangeBell {
  #watcher: FSWatcher | undefined;
  #rung = false;
  #wake: (() => void) | undefined;
  readonly #signal: AbortSignal | undefined;
  readonly #onAbort = (): void => {
    this.#ring();
  };

  constructor(dir: string, signal?: AbortSignal) {
    this.#signal = signal;
    try {
      this.#watcher = watch(dir, { persistent: false }, () => {
        this.#ring();
      });
      this.#watcher.on("error", () => {
        // The directory went away or the watch broke: fall back to polling.
        this.#watcher?.close();
        this.#watcher = undefined;
        this.#ring();
      });
    } catch {
      this.#watcher = undefined;
    }
    signal?.addEventListener("abort", this.#onAbort, { once: true });
  }

  /** Whether file system notifications are working (if not, waits poll fast). */
  get notified(): boolean {
    return this.#watcher !== undefined;
  }

  /**
   * Resolves when the directory changed since the last wait, at the next poll, after `maxMs`, or
   * when the signal aborts, whichever comes first.
   */
  wait(maxMs = Infinity): Promise<void> {
    if (this.#rung || this.#signal?.aborted === true) {
      this.#rung = false;
      return Promise.resolve();
    }
    const poll = this.notified ? STORE_TIMING.watchSafetyPollMs : STORE_TIMING.watchFallbackPollMs;
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#wake = undefined;
        this.#rung = false;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, Math.min(poll, maxMs)));
      this.#wake = done;
    });
  }

  close(): void {
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#signal?.removeEventListener("abort", this.#onAbort);
    this.#wake?.();
  }

  #ring(): void {
    this.#rung = true;
    this.#wake?.();
  }
}
