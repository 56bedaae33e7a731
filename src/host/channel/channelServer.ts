// The host's end of the guest-to-host channel: a unix socket (control.sock, beside the egress
// sockets) that one attach of one task serves while its sandbox runs. Over it the runner reports
// the agent's events, takes the messages a user sent, hands back the agent's replies, and asks
// about permission prompts. Every request is scoped to the attach's own Attachment: the guest
// never names a task, so it can reach no other.
import { chmod, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import type { AgentEvent } from "../../agents/index.js";
import {
  CHANNEL_LIMITS,
  channelLine,
  cleanLine,
  cutText,
  filesRefusedNote,
  WardenError,
  type ChannelRequest,
  type ChannelMessage,
  type ChannelResponse,
} from "../../protocol/index.js";
import {
  MessageStateError,
  StoreError,
  type Attachment,
  type InboxMessage,
} from "../../store/index.js";
import { errorMessage } from "../../lang/index.js";
import { shareMessageFiles } from "./shareMessageFiles.js";
import { checkAgentEvent } from "./agentEvents.js";
import { ChannelPathError } from "../errors.js";
import type { ApprovalDesk } from "./approvalDesk.js";
import {
  ChannelConnection,
  emptyStats,
  errorResponse,
  type ChannelStats,
} from "./channelConnection.js";
import { HOST_LIMITS } from "../limits.js";
import { AGENT_EVENT_TYPE, OUTPUT_EVENT_TYPE } from "./eventTypes.js";

/** An agent's output line as the channel checked it. */
export type OutputEvent = Extract<AgentEvent, { type: "output" }>;

/** The longest path a unix socket may have on Linux (sun_path, its NUL excluded). */
const SOCKET_PATH_BYTES = 107;

/** The longest reason sent back with an approval (the response schema's bound). */
const REASON_BYTES = 4 * 1024;

export interface ChannelServerOptions {
  /** Where to listen: the task's egress directory, which only its owner may enter. */
  readonly path: string;
  readonly attachment: Attachment;
  readonly approvals: ApprovalDesk;
  /** Each agent event as it is recorded, e.g. for the reporter. */
  readonly onAgentEvent?: (event: AgentEvent) => void;
  /** Each output line of a command agent as it is recorded, e.g. for the guest log. */
  readonly onOutput?: (event: OutputEvent) => void;
  /** Where the files sent with a message go for the runner: the share's `messages/`. */
  readonly messagesDir?: string;
  /** The clock, for the rate limits (tests may pass their own). */
  readonly now?: () => number;
  /** Answers the setup's requests (setupPhase.ts); without it they are refused. */
  readonly onSetup?: (request: SetupRequest) => Promise<ChannelResponse>;
  /** Answers the checkpoints' requests (checkpoints/); without it they are refused. */
  readonly onCheckpoint?: (request: CheckpointRequest) => Promise<ChannelResponse>;
}

/** The requests of the checkpoints. */
export type CheckpointRequest = Extract<ChannelRequest, { op: `checkpoint.${string}` }>;

/** The requests of the setup step. */
export type SetupRequest = Extract<ChannelRequest, { op: `setup.${string}` }>;

export interface ChannelCounts extends ChannelStats {
  /** Agent events recorded, and those dropped (unknown type, wrong shape, or past the cap). */
  agentEvents: number;
  droppedEvents: number;
  /** Output lines recorded; those past their cap count in droppedEvents. */
  outputEvents: number;
}

export interface RunningChannel {
  readonly path: string;
  /** What the connections did so far. */
  readonly counts: Readonly<ChannelCounts>;
  /**
   * Denies the prompts still waiting, closes every connection and the socket, and records a
   * `channel` event when anything was refused or dropped.
   */
  close(): Promise<void>;
}

class ChannelService implements RunningChannel {
  readonly counts: ChannelCounts = {
    ...emptyStats(),
    agentEvents: 0,
    droppedEvents: 0,
    outputEvents: 0,
  };
  readonly #connections = new Set<ChannelConnection>();
  /** Connections refused for the count, until they have closed. */
  readonly #refused = new Set<Socket>();
  readonly #server: Server;
  readonly #options: ChannelServerOptions;
  #closing = false;
  /** Messages whose handed-back files were refused, so the event is recorded once each. */
  readonly #refusedReplyFiles = new Set<number>();
  #capNoted = false;
  #outputCapNoted = false;

  constructor(options: ChannelServerOptions) {
    this.#options = options;
    this.#server = createServer({ allowHalfOpen: false }, (socket) => {
      this.#accept(socket);
    });
  }

  get path(): string {
    return this.#options.path;
  }

  async listen(): Promise<void> {
    if (Buffer.byteLength(this.path) > SOCKET_PATH_BYTES)
      throw new ChannelPathError(
        `the socket path ${cleanLine(this.path)} is too long for a unix socket`,
      );
    await rm(this.path, { force: true });
    await new Promise<void>((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(this.path, () => {
        this.#server.off("error", reject);
        resolve();
      });
    });
    await chmod(this.path, 0o600);
  }

  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    await this.#options.approvals.close();
    const closed = new Promise<void>((resolve) => {
      this.#server.close(() => {
        resolve();
      });
    });
    for (const connection of this.#connections) connection.destroy();
    for (const socket of this.#refused) socket.destroy();
    await closed;
    await rm(this.path, { force: true }).catch(() => undefined);
    const c = this.counts;
    const refused =
      c.refusedConnections + c.closedForSize + c.closedForRate + c.droppedEvents > 0 ||
      Object.keys(c.errors).length > 0;
    if (refused) {
      this.#event("channel", {
        connections: c.connections,
        requests: c.requests,
        agentEvents: c.agentEvents,
        droppedEvents: c.droppedEvents,
        refusedConnections: c.refusedConnections,
        closedForSize: c.closedForSize,
        closedForRate: c.closedForRate,
        errors: c.errors,
      });
    }
  }

  /**
   * The message as the runner gets it, its files put in the share first. Files the store refuses
   * (changed since they were sent) are not handed over: the agent gets the message with a note
   * that says so, and the task's events record why.
   */
  async #withFiles(message: InboxMessage): Promise<ChannelMessage> {
    const sent = { n: message.n, body: message.body };
    if ((message.files ?? []).length === 0) return sent;
    try {
      if (this.#options.messagesDir === undefined) {
        throw new Error("this sandbox has no share to put files in");
      }
      const files = await shareMessageFiles(
        this.#options.attachment,
        this.#options.messagesDir,
        message,
      );
      return { ...sent, files };
    } catch (error) {
      const why = cleanLine(errorMessage(error));
      this.#event("message_files_refused", { n: message.n, why });
      return { ...sent, body: `${message.body}\n\n${filesRefusedNote(why)}` };
    }
  }

  #accept(socket: Socket): void {
    if (this.#closing || this.#connections.size >= CHANNEL_LIMITS.connections) {
      this.counts.refusedConnections++;
      this.#refused.add(socket);
      socket.once("close", () => this.#refused.delete(socket));
      socket.on("error", () => undefined);
      socket.end(
        channelLine(
          errorResponse(0, "too_many", `at most ${CHANNEL_LIMITS.connections} connections`),
        ),
      );
      setTimeout(() => socket.destroy(), 1000).unref();
      return;
    }
    this.counts.connections++;
    const connection = new ChannelConnection(
      socket,
      (request) => this.#answer(request),
      this.counts,
      this.#options.now ?? Date.now,
    );
    this.#connections.add(connection);
    void connection.closed.then(() => this.#connections.delete(connection));
  }

  async #answer(request: ChannelRequest): Promise<ChannelResponse> {
    if (this.#closing || this.#options.attachment.released) {
      return errorResponse(request.id, "finished", "the task's run has ended");
    }
    switch (request.op) {
      case "events":
        return { v: 1, id: request.id, ok: true, op: "events", recorded: this.#events(request) };
      case "inbox.next": {
        const message = await this.#options.attachment.takeNextMessage();
        if (message === undefined) return { v: 1, id: request.id, ok: true, op: "inbox.next" };
        this.#event("message_taken", { n: message.n });
        return {
          v: 1,
          id: request.id,
          ok: true,
          op: "inbox.next",
          message: await this.#withFiles(message),
        };
      }
      case "inbox.reply":
        try {
          const delivered = await this.#options.attachment.deliver(request.n, request.reply);
          this.#event("message_delivered", {
            n: delivered.n,
            replyCut: delivered.replyCut ?? false,
          });
          return { v: 1, id: request.id, ok: true, op: "inbox.reply" };
        } catch (error) {
          if (error instanceof MessageStateError) {
            return errorResponse(
              request.id,
              "bad_request",
              `message ${request.n} is not one the runner took`,
            );
          }
          throw error;
        }
      case "reply.file":
        return this.#replyFile(request);
      case "approval.ask": {
        const answer = await this.#options.approvals.ask(request.tool, request.input);
        return {
          v: 1,
          id: request.id,
          ok: true,
          op: "approval.ask",
          decision: answer.decision,
          reason: cutText(answer.reason, REASON_BYTES).text,
        };
      }
      case "setup.start":
      case "setup.output":
      case "setup.snapshot":
      case "setup.end":
        return this.#options.onSetup === undefined
          ? errorResponse(request.id, "bad_request", "this task has no setup")
          : this.#options.onSetup(request);
      case "checkpoint.piece":
      case "checkpoint.end":
        return this.#options.onCheckpoint === undefined
          ? errorResponse(request.id, "bad_request", "this host keeps no checkpoints")
          : this.#options.onCheckpoint(request);
    }
  }

  /**
   * A piece of a file handed back with a reply. The store bounds it (message in flight, plain
   * name, pieces in order, count and total); a refusal is the runner's fault and is answered as
   * such, and the first of a message is recorded as an event.
   */
  async #replyFile(
    request: Extract<ChannelRequest, { op: "reply.file" }>,
  ): Promise<ChannelResponse> {
    const data = Buffer.from(request.data, "base64");
    if (data.byteLength > CHANNEL_LIMITS.replyFileChunkBytes) {
      return errorResponse(request.id, "too_big", "a piece over its bound");
    }
    try {
      await this.#options.attachment.replyFilePiece({
        n: request.n,
        name: request.name,
        offset: request.offset,
        data,
        last: request.last,
      });
      return { v: 1, id: request.id, ok: true, op: "reply.file" };
    } catch (error) {
      if (error instanceof StoreError && error.exitClass === "usage") {
        if (!this.#refusedReplyFiles.has(request.n)) {
          this.#refusedReplyFiles.add(request.n);
          this.#event("reply_files_refused", { n: request.n, why: cleanLine(error.message) });
        }
        return errorResponse(request.id, "bad_request", cleanLine(error.message));
      }
      throw error;
    }
  }

  /** Records each event that has a shape warden knows, up to the attach's cap. */
  #events(request: Extract<ChannelRequest, { op: "events" }>): number {
    let recorded = 0;
    for (const value of request.events) {
      const event = checkAgentEvent(value);
      if (event === undefined) {
        this.counts.droppedEvents++;
        continue;
      }
      if (event.type === "output") {
        if (this.#output(event)) recorded++;
        continue;
      }
      if (this.counts.agentEvents >= HOST_LIMITS.agentEvents) {
        this.counts.droppedEvents++;
        if (!this.#capNoted) {
          this.#capNoted = true;
          this.#event("agent_events_dropped", {
            after: HOST_LIMITS.agentEvents,
            see: "results/transcript.jsonl",
          });
        }
        continue;
      }
      const { type, ...fields } = event;
      this.#event(AGENT_EVENT_TYPE, { kind: type, ...fields });
      this.counts.agentEvents++;
      recorded++;
      this.#options.onAgentEvent?.(event);
    }
    return recorded;
  }

  /** Records one output line, up to the attach's cap; says whether it was recorded. */
  #output(event: OutputEvent): boolean {
    if (this.counts.outputEvents >= HOST_LIMITS.outputEvents) {
      this.counts.droppedEvents++;
      if (!this.#outputCapNoted) {
        this.#outputCapNoted = true;
        this.#event("output_dropped", {
          after: HOST_LIMITS.outputEvents,
          see: "warden logs --transcript, warden logs --agent-log",
        });
      }
      return false;
    }
    const { type: _type, cut, ...fields } = event;
    this.#event(OUTPUT_EVENT_TYPE, { ...fields, ...(cut ? { cut } : {}) });
    this.counts.outputEvents++;
    this.#options.onOutput?.(event);
    return true;
  }

  #event(type: string, data: Record<string, unknown>): void {
    try {
      this.#options.attachment.appendEvent(type, data);
    } catch (error) {
      // Only a closed attachment refuses a well-formed event: the run is over.
      if (!(error instanceof WardenError)) throw error;
    }
  }
}

/** Listens on `options.path` (0600) and serves the channel until close(). */
export async function startChannelServer(options: ChannelServerOptions): Promise<RunningChannel> {
  const service = new ChannelService(options);
  await service.listen();
  return service;
}
