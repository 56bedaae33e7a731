// A task's events on the stream: appended by the one holder of its lease, read by any watcher.
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { eventLine, parseEventLine, type TaskEvent, type WatchOptions } from "../store/index.js";
import type { FleetContext } from "./context.js";
import { FLEET_TIMING } from "./limits.js";
import { LeaseLostError } from "./errors.js";
import { isWrongRevision, readRun } from "./runRecord.js";

/** The appending side: the holder knows the subject's last stream sequence and the task's seq. */
export class EventAppender {
  readonly #js: JetStreamClient;
  readonly #subject: string;
  #streamSeq: number;
  #seq: number;

  private constructor(js: JetStreamClient, subject: string, streamSeq: number, seq: number) {
    this.#js = js;
    this.#subject = subject;
    this.#streamSeq = streamSeq;
    this.#seq = seq;
  }

  /** Reads the subject's last event, so seq continues across attaches. */
  static async open(
    js: JetStreamClient,
    jsm: JetStreamManager,
    stream: string,
    subject: string,
  ): Promise<EventAppender> {
    const last = await jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(() => null);
    if (last === null) return new EventAppender(js, subject, 0, 0);
    const event = parseEventLine(new TextDecoder().decode(last.data));
    return new EventAppender(js, subject, last.seq, event?.seq ?? 0);
  }

  get lastSeq(): number {
    return this.#seq;
  }

  /**
   * Publishes one event, expecting the subject's last sequence to be the one this holder wrote:
   * an event of a holder that another writer overtook is refused (LEASE_LOST).
   */
  async append(type: string, data: Record<string, unknown>, at: number): Promise<number> {
    const seq = this.#seq + 1;
    const line = eventLine(seq, at, type, data);
    try {
      const ack = await this.#js.publish(this.#subject, line, {
        expect: { lastSubjectSequence: this.#streamSeq },
      });
      this.#streamSeq = ack.seq;
    } catch (error) {
      if (isWrongRevision(error)) {
        throw new LeaseLostError(`another writer appended to the events of ${this.#subject}`);
      }
      throw error;
    }
    this.#seq = seq;
    return seq;
  }
}

/** One pull of a watcher: the next event, or undefined when none came within the wait. */
export type PullEvent = (waitMs: number) => Promise<{ event: TaskEvent; pending: number } | null>;

/** An ordered consumer of the task's subject from its first event. */
export async function eventPuller(
  js: JetStreamClient,
  stream: string,
  subject: string,
): Promise<{ pull: PullEvent; close: () => Promise<void> }> {
  const consumer = await js.consumers.get(stream, { filter_subjects: subject });
  return {
    pull: async (waitMs) => {
      for (;;) {
        const message = await consumer.next({ expires: waitMs });
        if (message === null) return null;
        const event = parseEventLine(message.string());
        // A line that is not an event is skipped, as the filesystem's watcher skips it.
        if (event !== undefined) return { event, pending: message.info.pending };
      }
    },
    close: async () => {
      await consumer.delete().catch(() => undefined);
    },
  };
}

/**
 * An ordered consumer of the task's subject: events after `since`, in order, once each; ends
 * once the terminal record exists and its last event was yielded (or at the end, unfollowed).
 */
export async function* watchTask(
  ctx: FleetContext,
  id: string,
  options: WatchOptions,
): AsyncGenerator<TaskEvent> {
  const { names } = ctx.layout;
  const puller = await eventPuller(ctx.js, names.eventsStream, names.eventsSubject(id));
  let last = options.since ?? 0;
  try {
    for (;;) {
      if (options.signal?.aborted === true) return;
      const got = await puller.pull(FLEET_TIMING.watchPullMs);
      if (got !== null) {
        if (got.event.seq > last) {
          last = got.event.seq;
          yield got.event;
        }
        if (got.pending > 0) continue;
      }
      const terminal = (await readRun(ctx.layout.kv, id))?.run.terminal;
      if (terminal !== undefined && last >= terminal.lastSeq) return;
      if (options.follow === false && (got === null || got.pending === 0)) return;
    }
  } finally {
    await puller.close();
  }
}
