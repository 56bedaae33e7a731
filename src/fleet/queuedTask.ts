// One id taken from the work queue by a worker that has not yet decided what to do with it. The
// queue's message stays unacknowledged until then: a worker that dies between taking an id and
// leasing its task never acknowledges it, so JetStream hands the id to another worker once the
// consumer's ack wait passes, and no task is left `created` with nobody to run it.
import type { JsMsg } from "@nats-io/jetstream";

export class QueuedTask {
  readonly id: string;
  readonly #message: JsMsg;
  #settled = false;

  constructor(id: string, message: JsMsg) {
    this.id = id;
    this.#message = message;
  }

  /** Removes the id from the queue: the task is leased, or there is nothing to run. */
  async done(): Promise<void> {
    if (this.#settled) return;
    this.#settled = true;
    await this.#message.ackAck();
  }

  /**
   * Leaves the id on the queue for another worker, handed out again after `delayMs` (a task
   * whose required labels this worker lacks). The id keeps its place before later ones.
   */
  leave(delayMs: number): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#message.nak(delayMs);
  }
}
