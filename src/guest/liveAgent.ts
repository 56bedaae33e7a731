// What the runner does with a running agent's output: reads its stdout into warden's events
// (the adapter's stream reader, a fresh one per run), sends them to the host when there is a
// channel, and, for an agent that takes further messages on stdin, delivers the user's messages
// at its turn boundaries. It also keeps what the runner needs to judge a run and start the next
// one: the run's last result, and the session the agent last named. Nothing here can hold up the
// agent: the stdout tap only parses and queues, and a host that fails only costs the events and
// messages it would have carried.
import type { Writable } from "node:stream";
import {
  AGENT_EVENT_LIMITS,
  type AgentAdapter,
  type AgentEvent,
  type AgentOutcome,
  type AgentResultEvent,
  type StreamReader,
} from "../agents/index.js";
import { within } from "../lang/index.js";
import { GUEST_CHANNEL_LIMITS } from "./limits.js";
import { Conversation } from "./conversation.js";
import { EventSender } from "./eventSender.js";
import type { HostChannel } from "./hostChannel.js";
import { LineSplitter } from "./lineSplitter.js";
import { LiveOutput } from "./liveOutput.js";
import type { MessageFilePlaces } from "./messageFiles.js";
import type { AgentIo } from "./superviseAgent.js";

export interface LiveAgentInput {
  readonly adapter: AgentAdapter;
  /** Absent: the events are read (to judge each run) but go nowhere, and no message comes. */
  readonly channel: HostChannel | undefined;
  readonly progress: (line: string) => void;
  readonly warn: (text: string) => void;
  /** Where a message's files come from and go (messageFiles.ts). */
  readonly files?: MessageFilePlaces;
  /**
   * A turn boundary passed: a tool's result came back (the step it ended is complete) or a run
   * ended. What a checkpoint is taken at.
   */
  readonly onBoundary?: () => void;
  /** The runner closed the agent's input, with nothing more to ask: the agent is about to exit. */
  readonly onEnding?: () => void;
}

const utf8 = new TextDecoder("utf-8");

/** One task's agent, over all its runs. `io()` is what superviseAgent gets for each run. */
export class LiveAgent {
  private readonly events: EventSender | undefined;
  private reader: StreamReader;
  private lines: LineSplitter;
  /** The stderr's reader, for an adapter that reads it (Gemini's retries). */
  private logReader: StreamReader | undefined;
  private logLines: LineSplitter | undefined;
  /** The run's output as lines for a watcher, for an agent warden reads no events from. */
  private output: LiveOutput | undefined;
  private conversation: Conversation | undefined;
  private lastResultOfRun: AgentResultEvent | undefined;
  private session: string | undefined;
  private overlong = 0;
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly input: LiveAgentInput) {
    this.events = input.channel === undefined ? undefined : new EventSender(input.channel);
    this.reader = input.adapter.readStream();
    this.lines = this.splitter(() => this.reader);
  }

  /** The last `result` event of the current (or last) run. */
  get lastResult(): AgentResultEvent | undefined {
    return this.lastResultOfRun;
  }

  /** The id of the last session the agent named, in any run: the one a resume continues. */
  get sessionId(): string | undefined {
    return this.session;
  }

  /** Begins a run: a fresh stream reader, and the AgentIo that feeds it. */
  io(): AgentIo {
    this.overlong += this.lines.overlong;
    this.reader = this.input.adapter.readStream();
    this.lines = this.splitter(() => this.reader);
    const logReader = this.input.adapter.readLog?.();
    this.logReader = logReader;
    this.logLines = logReader === undefined ? undefined : this.splitter(() => logReader);
    this.lastResultOfRun = undefined;
    const events = this.events;
    const output =
      this.input.adapter.liveOutput === true && events !== undefined
        ? new LiveOutput((event) => {
            events.add(event);
          })
        : undefined;
    this.output = output;
    const conversation = this.input.adapter.conversation;
    const channel = this.input.channel;
    return {
      keepStdinOpen: conversation !== undefined && channel !== undefined,
      started: (stdin: Writable) => {
        if (conversation === undefined || channel === undefined) {
          stdin.end();
          return;
        }
        this.conversation = new Conversation({
          channel,
          write: (line) => {
            stdin.write(line);
          },
          close: () => {
            stdin.end();
            this.input.onEnding?.();
          },
          messageLine: (text) => conversation.userMessageLine(text),
          progress: this.input.progress,
          warn: this.input.warn,
          files: this.input.files,
          track: (work) => {
            this.track(work);
          },
        });
      },
      stdout: (chunk: Buffer) => {
        this.lines.push(chunk);
        output?.push("stdout", chunk);
      },
      stderr: (chunk: Buffer) => {
        this.logLines?.push(chunk);
        output?.push("stderr", chunk);
      },
      exited: () => {
        this.conversation?.agentExited();
      },
    };
  }

  /** The run's output has ended: reads what the reader held back. Returns its last result. */
  endOutput(): AgentResultEvent | undefined {
    this.lines.end();
    this.take(this.read(() => this.reader.end()));
    this.logLines?.end();
    const logReader = this.logReader;
    if (logReader !== undefined) this.take(this.read(() => logReader.end()));
    this.output?.end();
    this.output = undefined;
    this.conversation?.finish();
    this.conversation = undefined;
    return this.lastResultOfRun;
  }

  /**
   * The runner judged how the run ended. The host learns it from a result event: the agent's
   * own, or else the one the adapter synthesized for it.
   */
  judged(outcome: AgentOutcome | undefined): void {
    if (outcome === undefined) return;
    // Also when the agent's own result said ok and its exit then said otherwise (killed just
    // after it), so the host's last word on the run is the runner's judgement.
    const own = this.lastResultOfRun;
    if (outcome.synthesized || (own !== undefined && own.ok !== outcome.result.ok)) {
      this.lastResultOfRun = outcome.result;
      this.events?.add(outcome.result);
    }
  }

  /**
   * Work on the channel the runner must wait for before it ends (a reply, with the files it
   * hands back): finish() waits for it within its bound. The work reports its own failures.
   */
  track(work: Promise<void>): void {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /**
   * Every run is over: waits for the host to take the events, and then whatever else is on its
   * way (the last reply and its files), within one bound. Adds what did not reach the host to
   * the warnings.
   */
  async finish(): Promise<void> {
    this.overlong += this.lines.overlong;
    const channel = this.input.channel;
    if (this.events !== undefined && channel !== undefined) {
      const started = performance.now();
      const left = (): number =>
        Math.max(0, GUEST_CHANNEL_LIMITS.flushMs - (performance.now() - started));
      await within(Promise.all(this.pending), left());
      await this.events.flush(left());
      await channel.settle(left());
      for (const warning of this.events.warnings()) this.input.warn(warning);
    }
    if (this.overlong > 0) {
      this.input.warn(
        `${this.overlong} lines of the agent's output were over ${AGENT_EVENT_LIMITS.lineBytes} bytes and not read into events`,
      );
    }
  }

  /** Splits a run's output into lines for the reader `reader()` gives. */
  private splitter(reader: () => StreamReader): LineSplitter {
    return new LineSplitter(AGENT_EVENT_LIMITS.lineBytes, (line) => {
      this.take(this.read(() => reader().line(utf8.decode(line))));
    });
  }

  private read(reading: () => AgentEvent[]): AgentEvent[] {
    try {
      return reading();
    } catch {
      // A reader never throws on hostile input; should one, the transcript still has the line.
      return [];
    }
  }

  private take(events: AgentEvent[]): void {
    for (const event of events) {
      this.events?.add(event);
      if (event.type === "session" && event.sessionId !== undefined) {
        this.session = event.sessionId;
      }
      if (event.type === "tool_result" || event.type === "turn_ended" || event.type === "result") {
        this.input.onBoundary?.();
      }
      // The boundary first: the conversation may end at this result, and its end must follow
      // the boundary it ends on.
      if (event.type === "result") {
        this.lastResultOfRun = event;
        this.conversation?.result(event);
      }
    }
  }
}
