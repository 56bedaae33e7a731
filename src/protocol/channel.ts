// The guest-to-host channel: a unix socket the host binds into the sandbox (control.sock beside
// the egress sockets), over which the runner reports the agent's events, takes the messages a
// user sent, hands back the agent's replies, and asks about permission prompts.
//
// The wire: newline-delimited JSON, one request and one response per line, in order, on one
// connection. Every request carries the version and an id the response repeats. The host treats
// every request as hostile: each line is bounded, parsed strictly against the schemas here,
// rate-limited, and scoped to the host's own task (the guest never names another).
import { z } from "zod";
import { memo } from "../lang/index.js";
import { LIMITS, SETUP_LIMITS } from "./limits.js";
import { MESSAGE_FILE_NAME } from "./names.js";
import { CHECKPOINT_LIMITS, CHECKPOINT_PARTS, SESSION_ID } from "./checkpoint.js";
import { OID } from "./result.js";

/** Bumped on any change a peer of the previous version would misread. */
export const CHANNEL_VERSION = 1;

/** The socket's name beside the egress sockets (GUEST_SOCKETS_ENV names the directory). */
export const CHANNEL_SOCKET = "control.sock";

const KiB = 1024;

export const CHANNEL_LIMITS = {
  /** One request line: a batch of events or a reply, never a transcript. */
  requestBytes: 512 * KiB,
  /**
   * One response line: at most one message and its envelope. A body of 256 KiB may be control
   * characters, each of which JSON writes as a six-byte \u escape: 1.5 MiB and the envelope.
   */
  responseBytes: 1600 * KiB,
  /** Events in one `events` request; the runner batches, the host records each one. */
  eventsPerRequest: 64,
  /** One event as JSON: an AgentEvent's texts are cut well below this, so only a hostile one is over. */
  eventBytes: 16 * KiB,
  /** Requests a connection may make per second before the host answers `rate_limited`. */
  requestsPerSecond: 200,
  /** Connections at once from one sandbox: the runner needs one, the permission tool one more. */
  connections: 4,
  /** Permission prompts waiting for an answer at once. */
  pendingApprovals: 4,
  /** A reply to a message, before the store cuts its summary. */
  replyBytes: 256 * KiB,
  /**
   * One piece of a file the agent hands back with a reply (`reply.file`), before base64: four
   * thirds of it and the envelope stay well inside a request line.
   */
  replyFileChunkBytes: 192 * KiB,
  /** A permission prompt's tool name and its input summary. */
  toolNameBytes: 256,
  toolInputBytes: 16 * KiB,
} as const;

const text = (max: number) =>
  z.string().refine((s) => Buffer.byteLength(s) <= max, `over ${max} bytes`);

/** An event as it crosses the channel: checked for shape here, cleaned by whoever shows it. */
const wireEvent = () =>
  z
    .object({ type: z.string().min(1).max(64) })
    .catchall(z.unknown())
    .refine(
      (e) => Buffer.byteLength(JSON.stringify(e)) <= CHANNEL_LIMITS.eventBytes,
      `an event over ${CHANNEL_LIMITS.eventBytes} bytes`,
    );

/** The schema of a request `op`, with the fields it carries beside the version and the id. */
function request<const Op extends string, Fields extends z.ZodRawShape>(op: Op, fields: Fields) {
  return z
    .object({
      v: z.literal(CHANNEL_VERSION),
      id: z.number().int().min(0),
      op: z.literal(op),
      ...fields,
    })
    .strict();
}

/** Base64 of at most `bytes` bytes. */
const base64 = (bytes: number) =>
  z
    .string()
    .max(Math.ceil(bytes / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, "not base64");

/**
 * Each request's schema by its op, made on its first use. A runner sends a few kinds of request
 * (a task without setup or messages: events and checkpoints), and making the schemas of all of
 * them took about 10 ms of the host's CPU at the first request, while the agent starts.
 */
const REQUEST_SCHEMAS = {
  /** The runner reports the agent's normalized events (AgentEvent), in order. */
  events: memo(() =>
    request("events", {
      events: z.array(wireEvent()).max(CHANNEL_LIMITS.eventsPerRequest),
    }),
  ),
  /** At a turn boundary: the oldest pending message, which the host then marks in_flight. */
  "inbox.next": memo(() => request("inbox.next", {})),
  /** The agent's reply to message `n` (the turn that message started): marks it delivered. */
  "inbox.reply": memo(() =>
    request("inbox.reply", {
      n: z.number().int().min(1),
      reply: text(CHANNEL_LIMITS.replyBytes),
    }),
  ),
  /**
   * A piece of a file the agent hands back with its reply to message `n`, sent before the reply:
   * pieces of one file come in order (`offset`), and `last` completes it.
   */
  "reply.file": memo(() =>
    request("reply.file", {
      n: z.number().int().min(1),
      name: z.string().max(LIMITS.messageFileNameBytes).regex(MESSAGE_FILE_NAME),
      offset: z.number().int().min(0).max(LIMITS.messageFilesBytes),
      data: base64(CHANNEL_LIMITS.replyFileChunkBytes),
      last: z.boolean(),
    }),
  ),
  /** A permission prompt: the host answers by policy, or waits for a person until a timeout. */
  "approval.ask": memo(() =>
    request("approval.ask", {
      tool: text(CHANNEL_LIMITS.toolNameBytes),
      input: text(CHANNEL_LIMITS.toolInputBytes),
    }),
  ),
  /**
   * Setup begins: the host answers with the values of setup's variables, once, and only while
   * it still counts the sandbox as in setup (the host decides when setup is over, never this).
   */
  "setup.start": memo(() => request("setup.start", {})),
  /** Lines setup wrote, for the task's events and results/setup.log. */
  "setup.output": memo(() =>
    request("setup.output", {
      lines: z
        .array(
          z
            .object({
              stream: z.enum(["stdout", "stderr"]),
              text: text(SETUP_LIMITS.outputLineBytes),
            })
            .strict(),
        )
        .max(SETUP_LIMITS.outputLinesPerRequest),
    }),
  ),
  /** The next piece of the setup's snapshot tar, in base64. */
  "setup.snapshot": memo(() =>
    request("setup.snapshot", { data: base64(SETUP_LIMITS.snapshotChunkBytes) }),
  ),
  /**
   * A piece of the next checkpoint (checkpoint.ts): a part's pieces come in order (`offset`);
   * a piece at offset 0 of the bundle begins a new checkpoint and drops one left unfinished.
   */
  "checkpoint.piece": memo(() =>
    request("checkpoint.piece", {
      part: z.enum(CHECKPOINT_PARTS),
      offset: z.number().int().min(0).max(CHECKPOINT_LIMITS.bundleBytes),
      data: base64(CHECKPOINT_LIMITS.pieceBytes),
    }),
  ),
  /**
   * The checkpoint is whole: the head the task branch is at, the tip of the bundle when it
   * carries uncommitted work, the session the session part is, and how many turns came before.
   */
  "checkpoint.end": memo(() =>
    request("checkpoint.end", {
      head: z.string().regex(OID),
      tip: z.string().regex(OID).optional(),
      sessionId: z.string().regex(SESSION_ID).optional(),
      turn: z.number().int().min(0).max(1_000_000),
      bundleBytes: z.number().int().min(0).max(CHECKPOINT_LIMITS.bundleBytes),
      sessionBytes: z.number().int().min(0).max(CHECKPOINT_LIMITS.sessionBytes),
    }),
  ),
  /** Setup is over: how it ended, and whether the snapshot pieces sent make a whole snapshot. */
  "setup.end": memo(() =>
    request("setup.end", {
      ok: z.boolean(),
      timedOut: z.boolean(),
      exitCode: z.number().int().min(-1).max(255).optional(),
      error: text(4 * KiB).optional(),
      durationMs: z
        .number()
        .int()
        .min(0)
        .max(SETUP_LIMITS.timeoutSeconds * 2000),
      snapshot: z.boolean(),
    }),
  ),
};

type RequestSchemas = typeof REQUEST_SCHEMAS;

/** The value at `key` of `table` when `key` is one of its own names (never one it inherits). */
function ownEntry<T extends object>(table: T, key: unknown): T[keyof T] | undefined {
  return typeof key === "string" && Object.hasOwn(table, key) ? table[key as keyof T] : undefined;
}

export type ChannelRequest = {
  [Op in keyof RequestSchemas]: z.infer<ReturnType<RequestSchemas[Op]>>;
}[keyof RequestSchemas];
export type ChannelOp = ChannelRequest["op"];

/** Why the host did not do what a request asked: stable codes the runner can act on. */
export const CHANNEL_ERRORS = [
  "bad_request",
  "version",
  "rate_limited",
  "too_big",
  "too_many",
  "finished",
  "internal",
] as const;
export type ChannelErrorCode = (typeof CHANNEL_ERRORS)[number];

/**
 * A message as the host hands it over. `files` name what the host put in the share's
 * `messages/<n>/` for it; the runner copies them into the workspace.
 */
export interface ChannelMessage {
  n: number;
  body: string;
  files?: { name: string; bytes: number }[];
}

const channelMessageSchema = () =>
  z
    .object({
      n: z.number().int().min(1),
      body: z.string(),
      files: z
        .array(
          z
            .object({
              name: z.string().max(LIMITS.messageFileNameBytes).regex(MESSAGE_FILE_NAME),
              bytes: z.number().int().min(0).max(LIMITS.messageFilesBytes),
            })
            .strict(),
        )
        .max(LIMITS.messageFiles)
        .optional(),
    })
    .strict();

export type ChannelResponse =
  | { v: 1; id: number; ok: true; op: "events"; recorded: number }
  | { v: 1; id: number; ok: true; op: "inbox.next"; message?: ChannelMessage }
  | { v: 1; id: number; ok: true; op: "inbox.reply" }
  | { v: 1; id: number; ok: true; op: "reply.file" }
  | {
      v: 1;
      id: number;
      ok: true;
      op: "approval.ask";
      decision: "allow" | "deny";
      /** Why: the policy rule, the person's word, or the timeout. */
      reason: string;
    }
  | { v: 1; id: number; ok: true; op: "setup.start"; env: Record<string, string> }
  | { v: 1; id: number; ok: true; op: "setup.output"; recorded: number }
  | { v: 1; id: number; ok: true; op: "setup.snapshot"; bytes: number }
  | { v: 1; id: number; ok: true; op: "setup.end"; kept: boolean }
  | { v: 1; id: number; ok: true; op: "checkpoint.piece" }
  | { v: 1; id: number; ok: true; op: "checkpoint.end"; seq: number }
  | { v: 1; id: number; ok: false; error: { code: ChannelErrorCode; message: string } };

/** The schema of a successful answer to `op`, with the fields it carries. */
function answerTo<const Op extends string, Fields extends z.ZodRawShape>(op: Op, fields: Fields) {
  return z
    .object({
      v: z.literal(1),
      id: z.number().int(),
      ok: z.literal(true),
      op: z.literal(op),
      ...fields,
    })
    .strict();
}

/**
 * Each answer's schema by the op it answers, made on its first use, as the requests' are; the
 * refusal of any request has one schema of its own.
 */
const RESPONSE_SCHEMAS = {
  events: memo(() => answerTo("events", { recorded: z.number().int().min(0) })),
  "inbox.next": memo(() => answerTo("inbox.next", { message: channelMessageSchema().optional() })),
  "inbox.reply": memo(() => answerTo("inbox.reply", {})),
  "reply.file": memo(() => answerTo("reply.file", {})),
  "approval.ask": memo(() =>
    answerTo("approval.ask", {
      decision: z.enum(["allow", "deny"]),
      reason: z.string().max(4 * KiB),
    }),
  ),
  "setup.start": memo(() => answerTo("setup.start", { env: z.record(z.string(), z.string()) })),
  "setup.output": memo(() => answerTo("setup.output", { recorded: z.number().int().min(0) })),
  "setup.snapshot": memo(() => answerTo("setup.snapshot", { bytes: z.number().int().min(0) })),
  "setup.end": memo(() => answerTo("setup.end", { kept: z.boolean() })),
  "checkpoint.piece": memo(() => answerTo("checkpoint.piece", {})),
  "checkpoint.end": memo(() => answerTo("checkpoint.end", { seq: z.number().int().min(0) })),
} satisfies Record<keyof RequestSchemas, unknown>;

const refusalSchema = memo(() =>
  z
    .object({
      v: z.literal(1),
      id: z.number().int(),
      ok: z.literal(false),
      error: z.object({ code: z.enum(CHANNEL_ERRORS), message: z.string().max(4 * KiB) }).strict(),
    })
    .strict(),
);

/** Parses one request line (without its newline). Returns the request or the error to answer. */
export function parseChannelRequest(
  line: Uint8Array,
):
  | { ok: true; request: ChannelRequest }
  | { ok: false; id: number; code: ChannelErrorCode; message: string } {
  if (line.byteLength > CHANNEL_LIMITS.requestBytes) {
    return {
      ok: false,
      id: 0,
      code: "too_big",
      message: `a request over ${CHANNEL_LIMITS.requestBytes} bytes`,
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(line));
  } catch {
    return { ok: false, id: 0, code: "bad_request", message: "a request that is not JSON" };
  }
  const id =
    typeof value === "object" &&
    value !== null &&
    Number.isSafeInteger((value as { id?: unknown }).id)
      ? Math.max(0, (value as { id: number }).id)
      : 0;
  if (
    typeof value === "object" &&
    value !== null &&
    (value as { v?: unknown }).v !== CHANNEL_VERSION
  ) {
    return {
      ok: false,
      id,
      code: "version",
      message: `this host speaks channel version ${CHANNEL_VERSION}`,
    };
  }
  const schema = ownEntry(REQUEST_SCHEMAS, (value as { op?: unknown } | null)?.op);
  const parsed = schema?.().safeParse(value);
  if (parsed?.success !== true) {
    return { ok: false, id, code: "bad_request", message: "a request warden does not take" };
  }
  return { ok: true, request: parsed.data };
}

/** Parses one response line on the guest's side; throws on anything else. */
export function parseChannelResponse(line: Uint8Array): ChannelResponse {
  if (line.byteLength > CHANNEL_LIMITS.responseBytes)
    throw new Error("a channel response over its limit");
  const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(line));
  const answer = value as { ok?: unknown; op?: unknown } | null;
  const schema = answer?.ok === false ? refusalSchema : ownEntry(RESPONSE_SCHEMAS, answer?.op);
  if (schema === undefined) throw new Error("a channel response to no request there is");
  return schema().parse(value);
}

/** One line of the wire: JSON and a newline. */
export function channelLine(message: ChannelRequest | ChannelResponse): string {
  return JSON.stringify(message) + "\n";
}
