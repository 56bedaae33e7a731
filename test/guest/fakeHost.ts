// A stand-in for the host's end of the channel: a real unix socket server at control.sock that
// speaks the protocol of src/protocol/channel.ts, records every request, and answers from an
// inbox and an approval policy the test sets, or misbehaves the way a test asks it to.
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  CHANNEL_SOCKET,
  channelLine,
  parseChannelRequest,
  type ChannelRequest,
  type ChannelResponse,
} from "../../src/protocol/index.js";

export interface Recorded {
  readonly request: ChannelRequest;
  /** performance.now() when it arrived. */
  readonly at: number;
  /** Which connection it came on: 1 for the first one accepted. */
  readonly connection: number;
}

/** How the host answers one request: the response (id and version are filled in), or a misdeed. */
export type Misdeed =
  | { readonly kind: "answer" }
  /** Wait this long, then answer. */
  | { readonly kind: "slow"; readonly ms: number }
  /** Never answer. */
  | { readonly kind: "silent" }
  /** Close the connection instead of answering. */
  | { readonly kind: "close" }
  /** Answer with these bytes. */
  | { readonly kind: "garbage"; readonly bytes: string | Uint8Array };

export interface FakeHostOptions {
  /** Messages in the inbox, oldest first; inbox.next takes them in order. */
  readonly messages?: readonly string[];
  /** The answer to each permission prompt; deny when absent. */
  readonly approve?: (
    tool: string,
    input: string,
  ) => Promise<{ decision: "allow" | "deny"; reason: string }>;
  /** What to do with the request numbered `index` (0-based, over all connections). */
  readonly misbehave?: (request: ChannelRequest, index: number) => Misdeed;
}

/** A checkpoint the runner sent, as checkpoint.end described it, with its parts. */
export interface FakeCheckpoint {
  readonly head: string;
  readonly tip?: string;
  readonly sessionId?: string;
  readonly turn: number;
  readonly bundle?: Buffer;
  readonly session?: Buffer;
}

export interface FakeHost {
  /** The checkpoints the runner sent, in order. */
  readonly checkpoints: readonly FakeCheckpoint[];
  /** The directory holding control.sock: the runner's WARDEN_GUEST_SOCKETS. */
  readonly dir: string;
  readonly socket: string;
  readonly recorded: readonly Recorded[];
  /** Every event the runner reported, in order. */
  events(): Record<string, unknown>[];
  /** The inbox: each message's state and reply. */
  readonly inbox: readonly {
    n: number;
    body: string;
    state: "pending" | "in_flight" | "delivered";
    reply?: string;
    /** When inbox.next handed it out. */
    takenAt?: number;
  }[];
  /** Resolves with the first recorded request (past or future) that matches. */
  waitFor(match: (r: Recorded) => boolean, timeoutMs?: number): Promise<Recorded>;
  /** Resolves once an event that matches has been reported. */
  waitForEvent(
    match: (e: Record<string, unknown>) => boolean,
    timeoutMs?: number,
  ): Promise<Record<string, unknown>>;
  /** Adds a message to the inbox while the task runs. */
  send(body: string): void;
  /** The files handed back with each reply (`reply.file`), by message and name. */
  readonly replyFiles: ReadonlyMap<number, ReadonlyMap<string, Buffer>>;
  close(): Promise<void>;
}

export async function startFakeHost(options: FakeHostOptions = {}): Promise<FakeHost> {
  const dir = await mkdtemp(join(tmpdir(), "warden-fake-host-"));
  const socket = join(dir, CHANNEL_SOCKET);
  const recorded: Recorded[] = [];
  const inbox: {
    n: number;
    body: string;
    state: "pending" | "in_flight" | "delivered";
    reply?: string;
    takenAt?: number;
  }[] = [];
  const send = (body: string) => {
    inbox.push({ n: inbox.length + 1, body, state: "pending" });
  };
  for (const body of options.messages ?? []) send(body);
  const waiters = new Set<() => void>();
  /** The files handed back with each reply, by message and name. */
  const replyFiles = new Map<number, Map<string, Buffer>>();
  const sockets = new Set<Socket>();
  /** The parts of the checkpoint being sent, and every checkpoint whole. */
  const checkpointParts = new Map<string, Buffer>();
  const checkpoints: FakeCheckpoint[] = [];
  let connections = 0;

  const respond = async (request: ChannelRequest): Promise<ChannelResponse> => {
    const base = { v: 1 as const, id: request.id, ok: true as const };
    switch (request.op) {
      case "events":
        return { ...base, op: "events", recorded: request.events.length };
      case "inbox.next": {
        const next = inbox.find((m) => m.state === "pending");
        if (next === undefined) return { ...base, op: "inbox.next" };
        next.state = "in_flight";
        next.takenAt = performance.now();
        return { ...base, op: "inbox.next", message: { n: next.n, body: next.body } };
      }
      case "inbox.reply": {
        const message = inbox.find((m) => m.n === request.n);
        if (message === undefined || message.state !== "in_flight") {
          return {
            v: 1,
            id: request.id,
            ok: false,
            error: { code: "bad_request", message: "no such message in flight" },
          };
        }
        message.state = "delivered";
        message.reply = request.reply;
        return { ...base, op: "inbox.reply" };
      }
      case "reply.file": {
        const files = replyFiles.get(request.n) ?? new Map<string, Buffer>();
        replyFiles.set(request.n, files);
        const had = files.get(request.name) ?? Buffer.alloc(0);
        files.set(request.name, Buffer.concat([had, Buffer.from(request.data, "base64")]));
        return { ...base, op: "reply.file" };
      }
      case "approval.ask": {
        const answer = (await options.approve?.(request.tool, request.input)) ?? {
          decision: "deny" as const,
          reason: "no policy in the fake host",
        };
        return { ...base, op: "approval.ask", ...answer };
      }
      case "setup.start":
      case "setup.output":
      case "setup.snapshot":
      case "setup.end":
        return {
          v: 1,
          id: request.id,
          ok: false,
          error: { code: "bad_request", message: "the fake host takes no setup" },
        };
      case "checkpoint.piece": {
        const had = checkpointParts.get(request.part) ?? Buffer.alloc(0);
        checkpointParts.set(
          request.part,
          Buffer.concat([had.subarray(0, request.offset), Buffer.from(request.data, "base64")]),
        );
        return { ...base, op: "checkpoint.piece" };
      }
      case "checkpoint.end": {
        const { v: _v, id: _id, op: _op, ...end } = request;
        checkpoints.push({
          ...end,
          bundle: checkpointParts.get("bundle"),
          session: checkpointParts.get("session"),
        });
        checkpointParts.clear();
        return { ...base, op: "checkpoint.end", seq: checkpoints.length };
      }
    }
  };

  const serve = (conn: Socket) => {
    connections += 1;
    const connection = connections;
    sockets.add(conn);
    conn.on("close", () => sockets.delete(conn));
    conn.on("error", () => undefined);
    let pending = Buffer.alloc(0);
    // Requests are answered in order, one at a time, as the protocol says.
    let chain = Promise.resolve();
    conn.on("data", (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      let newline = pending.indexOf(0x0a);
      while (newline >= 0) {
        const line = pending.subarray(0, newline);
        pending = pending.subarray(newline + 1);
        newline = pending.indexOf(0x0a);
        const parsed = parseChannelRequest(line);
        if (!parsed.ok) {
          conn.write(
            channelLine({
              v: 1,
              id: parsed.id,
              ok: false,
              error: { code: parsed.code, message: parsed.message },
            }),
          );
          continue;
        }
        const index = recorded.length;
        recorded.push({ request: parsed.request, at: performance.now(), connection });
        for (const waiter of [...waiters]) waiter();
        const misdeed = options.misbehave?.(parsed.request, index) ?? { kind: "answer" };
        chain = chain.then(async () => {
          switch (misdeed.kind) {
            case "silent":
              return;
            case "close":
              conn.destroy();
              return;
            case "garbage":
              conn.write(misdeed.bytes);
              return;
            case "slow":
              await new Promise((resolve) => setTimeout(resolve, misdeed.ms));
              break;
            case "answer":
              break;
          }
          const response = await respond(parsed.request);
          if (!conn.destroyed) conn.write(channelLine(response));
        });
      }
    });
  };

  const server: Server = createServer(serve);
  server.listen(socket);
  await once(server, "listening");

  const events = () =>
    recorded.flatMap((r) =>
      r.request.op === "events" ? (r.request.events as Record<string, unknown>[]) : [],
    );

  const waitUntil = <T>(find: () => T | undefined, timeoutMs: number, what: string) => {
    const found = find();
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`the fake host saw no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = () => {
        const hit = find();
        if (hit === undefined) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve(hit);
      };
      waiters.add(check);
    });
  };

  return {
    dir,
    socket,
    recorded,
    events,
    inbox,
    waitFor: (match, timeoutMs = 60_000) =>
      waitUntil(() => recorded.find(match), timeoutMs, "such request"),
    waitForEvent: (match, timeoutMs = 60_000) =>
      waitUntil(() => events().find(match), timeoutMs, "such event"),
    send,
    replyFiles,
    checkpoints,
    async close() {
      for (const conn of sockets) conn.destroy();
      server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
