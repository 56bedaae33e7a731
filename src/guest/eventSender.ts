// Sends the agent's normalized events to the host as they happen, in batches: events within a
// moment of each other share a request, and a result goes at once, since the host learns of a
// turn boundary from it. Adding an event never waits: a slow host makes events wait in a
// bounded queue, and past the bound they are dropped, counted, and named in a warning.
import type { AgentEvent } from "../agents/index.js";
import { errorMessage, within } from "../lang/index.js";
import { CHANNEL_LIMITS } from "../protocol/index.js";
import { GUEST_CHANNEL_LIMITS } from "./limits.js";
import { HostChannelError } from "./errors.js";
import type { HostChannel } from "./hostChannel.js";

/** Room in one request for everything around the events: the version, id, op and brackets. */
const ENVELOPE_BYTES = 256;

interface Queued {
  readonly event: AgentEvent;
  readonly bytes: number;
}

export interface EventSenderLimits {
  readonly coalesceMs: number;
  readonly pendingEvents: number;
  readonly eventRequestsInFlight: number;
}

export class EventSender {
  private readonly queue: Queued[] = [];
  /** Events in requests the host has not answered yet. */
  private unanswered = 0;
  private requestsInFlight = 0;
  private timer: NodeJS.Timeout | undefined;
  private readonly settled = new Set<Promise<void>>();
  private dropped = 0;
  private tooBig = 0;
  private refused = 0;
  private lost = 0;
  private refusal: string | undefined;

  constructor(
    private readonly channel: HostChannel,
    private readonly limits: EventSenderLimits = GUEST_CHANNEL_LIMITS,
  ) {}

  /** Queues an event; never waits, never throws. */
  add(event: AgentEvent): void {
    if (this.channel.broken !== undefined) {
      this.lost += 1;
      return;
    }
    const bytes = Buffer.byteLength(JSON.stringify(event));
    if (bytes > CHANNEL_LIMITS.eventBytes) {
      this.tooBig += 1;
      return;
    }
    if (
      event.type !== "result" &&
      this.queue.length + this.unanswered >= this.limits.pendingEvents
    ) {
      this.dropped += 1;
      return;
    }
    this.queue.push({ event, bytes });
    if (event.type === "result") {
      this.send();
    } else {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        if (this.requestsInFlight < this.limits.eventRequestsInFlight) this.send();
      }, this.limits.coalesceMs);
    }
  }

  /**
   * Sends what is queued and waits for the host's answers, at most `ms`. Resolves either way;
   * `warnings()` then says what did not arrive.
   */
  async flush(ms: number): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.queue.length > 0 && this.channel.broken === undefined) this.send();
    await within(Promise.all(this.settled), ms);
  }

  /** What did not reach the host, in a sentence each. */
  warnings(): string[] {
    const out: string[] = [];
    const waiting = this.queue.length + this.unanswered;
    const lost = this.lost + (this.channel.broken === undefined ? 0 : waiting);
    if (this.dropped > 0) {
      out.push(
        `the host took the agent's events too slowly: ${this.dropped} events were dropped ` +
          `(more than ${this.limits.pendingEvents} were waiting)`,
      );
    }
    if (lost > 0) {
      out.push(`${lost} of the agent's events were not sent: the channel to the host broke`);
    } else if (waiting > 0) {
      out.push(`${waiting} of the agent's events were still on their way when the runner finished`);
    }
    if (this.tooBig > 0) {
      out.push(
        `${this.tooBig} of the agent's events were over ${CHANNEL_LIMITS.eventBytes} bytes and not sent`,
      );
    }
    if (this.refused > 0) {
      out.push(`the host refused ${this.refused} of the agent's events: ${this.refusal ?? ""}`);
    }
    return out;
  }

  /** Puts one batch from the front of the queue into a request. */
  private send(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch: AgentEvent[] = [];
    let bytes = ENVELOPE_BYTES;
    while (batch.length < CHANNEL_LIMITS.eventsPerRequest) {
      const next = this.queue[0];
      if (next === undefined || bytes + next.bytes + 1 > CHANNEL_LIMITS.requestBytes) break;
      this.queue.shift();
      batch.push(next.event);
      bytes += next.bytes + 1;
    }
    if (batch.length === 0) return;
    this.unanswered += batch.length;
    this.requestsInFlight += 1;
    const done = this.channel
      .request({ op: "events", events: batch })
      .then(
        () => undefined,
        (error: unknown) => {
          // A broken channel counts what it lost in warnings(); a refusal loses this batch only.
          if (!(error instanceof HostChannelError)) {
            this.refused += batch.length;
            this.refusal ??= errorMessage(error);
          } else {
            this.lost += batch.length;
          }
        },
      )
      .finally(() => {
        this.unanswered -= batch.length;
        this.requestsInFlight -= 1;
        this.settled.delete(done);
        // More came while this one was on its way: they go now, in as few requests as fit.
        if (
          this.queue.length > 0 &&
          this.timer === undefined &&
          this.channel.broken === undefined
        ) {
          this.send();
        }
      });
    this.settled.add(done);
  }
}
