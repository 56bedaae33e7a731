// What the runner does with a running agent when the host is listening: reads its stdout into
// warden's events (the adapter's stream reader), sends them to the host, and, for an agent that
// takes further messages, delivers the user's messages at its turn boundaries. Nothing here can
// hold up the agent: the stdout tap only parses and queues, and a host that fails only costs
// the events and messages it would have carried.
import type { Writable } from "node:stream";
import {
  AGENT_EVENT_LIMITS,
  type AgentAdapter,
  type AgentEvent,
  type AgentOutcome,
  type StreamReader,
} from "../agents/index.js";
import { GUEST_CHANNEL_LIMITS } from "./channelLimits.js";
import { Conversation } from "./conversation.js";
import { EventSender } from "./eventSender.js";
import type { HostChannel } from "./hostChannel.js";
import { LineSplitter } from "./lineSplitter.js";
import type { AgentIo } from "./superviseAgent.js";

export interface LiveAgentInput {
  readonly adapter: AgentAdapter;
  readonly channel: HostChannel;
  readonly progress: (line: string) => void;
  readonly warn: (text: string) => void;
}

const utf8 = new TextDecoder("utf-8");

export class LiveAgent implements AgentIo {
  readonly keepStdinOpen: boolean;
  private readonly reader: StreamReader;
  private readonly events: EventSender;
  private readonly lines: LineSplitter;
  private conversation: Conversation | undefined;

  constructor(private readonly input: LiveAgentInput) {
    this.keepStdinOpen = input.adapter.conversation !== undefined;
    this.reader = input.adapter.readStream();
    this.events = new EventSender(input.channel);
    this.lines = new LineSplitter(AGENT_EVENT_LIMITS.lineBytes, (line) => {
      this.take(this.read(() => this.reader.line(utf8.decode(line))));
    });
  }

  started(stdin: Writable): void {
    const conversation = this.input.adapter.conversation;
    if (conversation === undefined) {
      stdin.end();
      return;
    }
    this.conversation = new Conversation({
      channel: this.input.channel,
      write: (line) => {
        stdin.write(line);
      },
      close: () => {
        stdin.end();
      },
      messageLine: (text) => conversation.userMessageLine(text),
      progress: this.input.progress,
      warn: this.input.warn,
    });
  }

  stdout(chunk: Buffer): void {
    this.lines.push(chunk);
  }

  exited(): void {
    this.conversation?.agentExited();
  }

  /**
   * The agent's output has ended and the runner judged how the run ended: the rest of the
   * stream's events, a result the adapter made up when the agent wrote none, and the wait for
   * the host to take them. Adds what did not reach the host to the warnings.
   */
  async finish(outcome: AgentOutcome | undefined): Promise<void> {
    this.lines.end();
    this.take(this.read(() => this.reader.end()));
    this.conversation?.finish();
    // The host learns how the run ended from a result event: the agent's own, or else the one
    // the adapter made up for it.
    if (outcome?.madeUp === true) this.events.add(outcome.result);
    // The events, and then whatever else is on its way (the last reply), within one bound.
    const started = performance.now();
    await this.events.flush(GUEST_CHANNEL_LIMITS.flushMs);
    await this.input.channel.settle(
      Math.max(0, GUEST_CHANNEL_LIMITS.flushMs - (performance.now() - started)),
    );
    for (const warning of this.events.warnings()) this.input.warn(warning);
    if (this.lines.overlong > 0) {
      this.input.warn(
        `${this.lines.overlong} lines of the agent's output were over ${AGENT_EVENT_LIMITS.lineBytes} bytes and not read into events`,
      );
    }
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
      this.events.add(event);
      if (event.type === "result") this.conversation?.result(event);
    }
  }
}
