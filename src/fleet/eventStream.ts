// A task's events on the stream: appended by the one holder of its lease, read by any watcher.
// A task's events are bounded as events.jsonl is (FLEET_LIMITS.eventsBytes, counted with a
// newline per event): each message carries in a header how many bytes the subject holds with
// it, so a new holder continues the count; once the bound is reached one `log_full` notice is
// appended and later events are dropped.
import type { JetStreamClient, JetStreamManager } from "@nats-io/jetstream";
import { headers, type Subscription } from "@nats-io/transport-node";
import {
  eventLine,
  NOTICE_RESERVE,
  parseEventLine,
  STORE_EVENTS,
  type TaskEvent,
  type WatchOptions,
} from "../store/index.js";
import type { FleetContext } from "./context.js";
import { FLEET_LIMITS, FLEET_TIMING } from "./limits.js";
import { LeaseLostError } from "./errors.js";
import { isWrongRevision, readRun } from "./runRecord.js";
import { nextBySubject, outlasting } from "./streamReads.js";

/** The header of each event message: the subject's bytes with this event, as a decimal. */
const BYTES_HEADER = "Warden-Events-Bytes";

/** Where an appender continues: the subject's last stream sequence, seq, bytes, and fullness. */
interface AppenderPosition {
  streamSeq: number;
  seq: number;
  bytes: number;
  full: boolean;
}

/** Where the first holder of a task begins. */
const EMPTY_SUBJECT: AppenderPosition = { streamSeq: 0, seq: 0, bytes: 0, full: false };

/** The appending side: the holder knows the subject's last stream sequence and the task's seq. */
export class EventAppender {
  readonly #js: JetStreamClient;
  readonly #subject: string;
  #at: AppenderPosition;

  private constructor(js: JetStreamClient, subject: string, at: AppenderPosition) {
    this.#js = js;
    this.#subject = subject;
    this.#at = at;
  }

  /** Reads the subject's last event, so seq and the byte count continue across attaches. */
  static async open(
    js: JetStreamClient,
    jsm: JetStreamManager,
    stream: string,
    subject: string,
  ): Promise<EventAppender> {
    const last = await jsm.streams.getMessage(stream, { last_by_subj: subject }).catch(() => null);
    if (last === null) return new EventAppender(js, subject, EMPTY_SUBJECT);
    const event = parseEventLine(new TextDecoder().decode(last.data));
    // A count that is missing or not a number is taken as full: the bound holds either way.
    const said = last.header.get(BYTES_HEADER);
    const bytes = /^[0-9]{1,15}$/.test(said) ? Number(said) : NaN;
    const counted = Number.isSafeInteger(bytes);
    return new EventAppender(js, subject, {
      streamSeq: last.seq,
      seq: event?.seq ?? 0,
      bytes: counted ? bytes : FLEET_LIMITS.eventsBytes,
      full: !counted || event?.type === STORE_EVENTS.logFull,
    });
  }

  get lastSeq(): number {
    return this.#at.seq;
  }

  /**
   * Publishes one event and returns its seq, or undefined when the task's events reached their
   * bound and the event was dropped. Expects the subject's last sequence to be the one this
   * holder wrote: an event of a holder that another writer overtook is refused (LEASE_LOST).
   */
  async append(
    type: string,
    data: Record<string, unknown>,
    at: number,
  ): Promise<number | undefined> {
    if (this.#at.full) return undefined;
    const seq = this.#at.seq + 1;
    const line = eventLine(seq, at, type, data);
    const bytes = this.#at.bytes + Buffer.byteLength(line) + 1;
    if (bytes <= FLEET_LIMITS.eventsBytes - NOTICE_RESERVE) {
      await this.#publish(line, { seq, bytes, full: false });
      return seq;
    }
    const notice = eventLine(seq, at, STORE_EVENTS.logFull, {
      limitBytes: FLEET_LIMITS.eventsBytes,
    });
    await this.#publish(notice, {
      seq,
      bytes: this.#at.bytes + Buffer.byteLength(notice) + 1,
      full: true,
    });
    return undefined;
  }

  async #publish(line: string, next: Omit<AppenderPosition, "streamSeq">): Promise<void> {
    const header = headers();
    header.set(BYTES_HEADER, String(next.bytes));
    try {
      const ack = await this.#js.publish(this.#subject, line, {
        expect: { lastSubjectSequence: this.#at.streamSeq },
        headers: header,
      });
      this.#at = { ...next, streamSeq: ack.seq };
    } catch (error) {
      if (isWrongRevision(error)) {
        throw new LeaseLostError(`another writer appended to the events of ${this.#subject}`);
      }
      throw error;
    }
  }
}

/**
 * A watcher's reader of one task's subject, by stream sequence (no consumer: see
 * streamReads.ts), with a plain subscription to the subject as its bell: a publish wakes it.
 */
export class EventReader {
  readonly #ctx: FleetContext;
  readonly #subject: string;
  readonly #bell: Subscription;
  #rung = false;
  #wake: (() => void) | undefined;
  #cursor = 1;

  private constructor(ctx: FleetContext, subject: string, bell: Subscription) {
    this.#ctx = ctx;
    this.#subject = subject;
    this.#bell = bell;
  }

  /** Subscribes before the first read, so no event published after it goes unheard. */
  static async open(ctx: FleetContext, subject: string): Promise<EventReader> {
    const bell = ctx.nc.subscribe(subject);
    const reader = new EventReader(ctx, subject, bell);
    void (async () => {
      for await (const _message of bell) reader.#ring();
    })();
    await ctx.nc.flush();
    return reader;
  }

  /** The next event in the stream after the last one read, or null when there is none now. */
  async next(): Promise<TaskEvent | null> {
    const { eventsStream } = this.#ctx.layout.names;
    for (;;) {
      const cursor = this.#cursor;
      const message = await outlasting(() =>
        nextBySubject(this.#ctx.jsm, eventsStream, this.#subject, cursor),
      );
      if (message === null) return null;
      this.#cursor = message.seq + 1;
      const event = parseEventLine(message.string());
      // A line that is not an event is skipped, as the filesystem's watcher skips it.
      if (event !== undefined) return event;
    }
  }

  /** Waits until an event was published since the last wait, or `waitMs` passed. */
  async bell(waitMs: number): Promise<void> {
    if (!this.#rung) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, waitMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.#wake = undefined;
    this.#rung = false;
  }

  close(): void {
    this.#bell.unsubscribe();
    this.#wake?.();
  }

  #ring(): void {
    this.#rung = true;
    this.#wake?.();
  }
}

/**
 * A task's events after `since`, in order, once each; ends once the terminal record exists and
 * its last event was yielded (or at the end, unfollowed).
 */
export async function* watchTask(
  ctx: FleetContext,
  id: string,
  options: WatchOptions,
): AsyncGenerator<TaskEvent> {
  const reader = await EventReader.open(ctx, ctx.layout.names.eventsSubject(id));
  let last = options.since ?? 0;
  try {
    for (;;) {
      if (options.signal?.aborted === true) return;
      const event = await reader.next();
      if (event !== null) {
        if (event.seq > last) {
          last = event.seq;
          yield event;
        }
        continue;
      }
      const terminal = (await outlasting(() => readRun(ctx.layout.kv, id)))?.run.terminal;
      if (terminal !== undefined && last >= terminal.lastSeq) return;
      if (options.follow === false) return;
      await reader.bell(FLEET_TIMING.watchPullMs);
    }
  } finally {
    reader.close();
  }
}
