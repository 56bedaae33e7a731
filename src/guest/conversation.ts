// Messages a user sent to a running task, delivered at the agent's turn boundaries. The agent's
// stdin stays open after the prompt; at each `result` the runner asks the host for the oldest
// pending message and writes it as the agent's next user message, and when that message's own
// result comes, hands the result's text back as its reply and asks again. When nothing is
// pending the runner closes stdin, and the agent finishes.
import type { AgentResultEvent } from "../agents/index.js";
import { errorMessage } from "../lang/index.js";
import { CHANNEL_LIMITS, cutText, type ChannelMessage } from "../protocol/index.js";
import type { HostChannel } from "./hostChannel.js";
import { messageForAgent, type MessageFilePlaces } from "./messageFiles.js";
import { namedReplyFiles, sendReplyFiles } from "./replyFiles.js";

/** Where the conversation is. */
type State =
  /** The prompt is with the agent; its result is the first turn boundary. */
  | { readonly kind: "prompt" }
  /** inbox.next is on its way to the host. */
  | { readonly kind: "asking" }
  /** Message `n` is with the agent; its result is the reply. */
  | { readonly kind: "delivering"; readonly n: number }
  /** Stdin is closed, or the agent is gone. */
  | { readonly kind: "closed" };

export interface ConversationInput {
  readonly channel: HostChannel;
  /** Writes one line to the agent's stdin. */
  readonly write: (line: string) => void;
  /** Closes the agent's stdin, which ends the run once its last message is answered. */
  readonly close: () => void;
  /** The stdin line for one more user message (the adapter's conversation). */
  readonly messageLine: (text: string) => string;
  readonly progress: (line: string) => void;
  readonly warn: (text: string) => void;
  /** Where a message's files come from and go; absent: none can be received. */
  readonly files?: MessageFilePlaces;
  /** Work the runner must wait for before it lets the channel go (a reply with its files). */
  readonly track: (work: Promise<void>) => void;
}

export class Conversation {
  private state: State = { kind: "prompt" };
  /** The agent has exited: its last output may still be read, but nothing more is asked. */
  private exited = false;

  constructor(private readonly input: ConversationInput) {}

  /** The agent wrote a result: the end of the prompt's turn or of a message's. */
  result(event: AgentResultEvent): void {
    const state = this.state;
    switch (state.kind) {
      case "closed":
      case "asking":
        // No message is with the agent, so this result answers nothing of the host's.
        return;
      case "delivering":
        this.reply(state.n, event);
        break;
      case "prompt":
        break;
    }
    if (this.exited) {
      this.state = { kind: "closed" };
      return;
    }
    if (!event.ok) {
      // A failed or bounded run is over: a further message would only hide how it ended.
      this.input.progress("the agent's last turn failed: no further messages are taken");
      this.end();
      return;
    }
    this.askNext();
  }

  /**
   * The agent exited. Its output may still hold the result of the message it had, which is
   * still its reply; but no further message is taken for it.
   */
  agentExited(): void {
    this.exited = true;
    if (this.state.kind !== "delivering") this.state = { kind: "closed" };
  }

  /** The agent's output has ended: a message it had and did not answer is named. */
  finish(): void {
    const state = this.state;
    this.state = { kind: "closed" };
    if (state.kind === "delivering") {
      this.input.warn(`message ${state.n} was delivered, but the agent ended before it answered`);
    }
  }

  /**
   * Hands the result back as message n's reply. A reply that names files sends them first, so
   * it waits for them; one that names none is asked at once, before the next inbox.next.
   */
  private reply(n: number, event: AgentResultEvent): void {
    const { channel, warn } = this.input;
    const reply = cutText(event.message ?? "", CHANNEL_LIMITS.replyBytes).text;
    const send = (): Promise<void> =>
      channel.request({ op: "inbox.reply", n, reply }).then(
        () => undefined,
        (error: unknown) => {
          warn(`the reply to message ${n} did not reach the host: ${errorMessage(error)}`);
        },
      );
    if (namedReplyFiles(reply).length === 0) {
      this.input.track(send());
      return;
    }
    this.input.track(sendReplyFiles(channel, n, reply, this.input.files, warn).then(send));
  }

  private askNext(): void {
    this.state = { kind: "asking" };
    this.input.channel.request({ op: "inbox.next" }).then(
      (answer) => this.deliver(answer.message),
      (error: unknown) => {
        if (this.state.kind !== "asking") return;
        this.input.warn(`could not ask the host for messages: ${errorMessage(error)}`);
        this.end();
      },
    );
  }

  /** Hands the host's answer to the agent: its files first, then the message that names them. */
  private async deliver(message: ChannelMessage | undefined): Promise<void> {
    if (message === undefined) {
      if (this.state.kind === "asking") this.end();
      return;
    }
    const body =
      this.state.kind === "asking" ? await messageForAgent(message, this.input.files) : "";
    if (this.state.kind !== "asking") {
      this.input.warn(
        `message ${message.n} was taken from the inbox as the agent ended, and not delivered`,
      );
      return;
    }
    this.state = { kind: "delivering", n: message.n };
    this.input.progress(`delivering message ${message.n} to the agent`);
    this.input.write(this.input.messageLine(body));
  }

  private end(): void {
    this.state = { kind: "closed" };
    this.input.close();
  }
}
