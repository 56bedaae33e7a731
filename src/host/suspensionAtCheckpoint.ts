// A suspension that waits for the runner's checkpoint, so that the resumed run goes on from the
// moment the task was suspended rather than from an older checkpoint: one asked for (`warden
// suspend`) waits for the agent's next turn boundary and that boundary's checkpoint; one for a
// usage limit (which comes while the agent waits on the API, between boundaries) waits for the
// checkpoint of the boundary the agent last passed, when that one is not kept yet. Either stops
// the sandbox anyway when no checkpoint comes within its wait.
import type { StopTriggers } from "./stopTriggers.js";

/** What a suspension needs of the run's stops. */
type Stops = Pick<StopTriggers, "trigger">;

/**
 * The agent events after which the runner takes a checkpoint (its LiveAgent's boundaries): one
 * is on its way until the host keeps one.
 */
const CHECKPOINT_BOUNDARIES: ReadonlySet<string> = new Set(["tool_result", "turn_ended", "result"]);

type SuspendReason = "suspend" | "usage_limit";

export class SuspensionAtCheckpoint {
  readonly #waitMs: number;
  readonly #settleMs: number;
  #timer: NodeJS.Timeout | undefined;
  #settle: NodeJS.Timeout | undefined;
  #reason: SuspendReason = "suspend";
  /** The agent passed a boundary and no checkpoint was kept since. */
  #owed = false;

  /**
   * `waitMs`: the longest a suspension waits for a checkpoint; `settleMs`: how long a usage
   * limit waits to hear of a boundary before it stops the sandbox without a checkpoint.
   */
  constructor(waitMs: number, settleMs: number) {
    this.#waitMs = waitMs;
    this.#settleMs = settleMs;
  }

  /** Whether a suspension waits for a checkpoint. */
  get waiting(): boolean {
    return this.#timer !== undefined;
  }

  /** An event of the agent's: after a boundary, a checkpoint is owed. */
  agentEvent(type: string): void {
    if (CHECKPOINT_BOUNDARIES.has(type)) this.#owed = true;
  }

  /** A requested suspension at a turn boundary: it waits for that boundary's checkpoint. */
  atBoundary(stops: Stops): void {
    if (this.waiting) return;
    this.#reason = "suspend";
    this.#wait(stops);
  }

  /**
   * A usage limit suspends the task once the checkpoint owed is kept (a suspension that already
   * waits for one becomes the usage limit's); when none is owed, after `settleMs` unless the
   * event of a boundary comes meanwhile (it may come after the limit: see usageLimitSettleMs).
   */
  usageLimit(stops: Stops): void {
    this.#reason = "usage_limit";
    if (this.waiting) return;
    this.#wait(stops);
    if (this.#owed) return;
    this.#settle = setTimeout(() => {
      this.#settle = undefined;
      if (this.#owed || !this.waiting) return;
      this.close();
      stops.trigger(this.#reason);
    }, this.#settleMs);
    this.#settle.unref();
  }

  /** The host kept a checkpoint: a suspension waiting for one stops the sandbox now. */
  kept(stops: Stops | undefined): void {
    this.#owed = false;
    if (!this.waiting) return;
    this.close();
    stops?.trigger(this.#reason);
  }

  close(): void {
    clearTimeout(this.#timer);
    clearTimeout(this.#settle);
    this.#timer = undefined;
    this.#settle = undefined;
  }

  #wait(stops: Stops): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      stops.trigger(this.#reason);
    }, this.#waitMs);
    this.#timer.unref();
  }
}
