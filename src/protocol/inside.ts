// Stepping inside a running task (`warden exec`, `shell`, `cp`, and `stop` of a debug hold). The
// channel (channel.ts) is asked by the guest and answered by the host; these sessions are asked by
// the host, so the runner keeps one idle connection open on a socket of their own (inside.sock,
// beside control.sock) and the host hands a session to it by sending `open` down it. The runner
// then opens the next idle connection. Every session has its own connection, so a shell's bytes
// never wait behind another's.
//
// The wire: frames of one kind byte, a four-byte big-endian length and at most
// INSIDE_LIMITS.frameBytes of payload, both ways, on the guest's socket and on the host's door
// (the socket `warden exec` talks to in the task's directory). A reader never holds more than one
// frame: a longer length is refused before its bytes arrive.
import { z } from "zod";
import { memo } from "../lang/index.js";
import { INSIDE_LIMITS } from "./limits.js";

/** Bumped on any change a peer of the previous version would misread. */
export const INSIDE_VERSION = 1;

/** The guest's socket's name beside control.sock (the backend appends `.sock` to a name). */
export const INSIDE_SOCKET = "inside.sock";

/** The kinds of frame. The low ones go to the guest, the high ones come from it. */
export const FRAME = {
  /** Guest → host, first on each connection: `{"v":1}`. */
  hello: 1,
  /** Host → guest: the session this connection is to run (an InsideOpen as JSON). */
  open: 2,
  /** Host → guest: bytes for the command's stdin, or the file `cp` puts. */
  stdin: 3,
  /** Host → guest: the end of stdin, or of the file. */
  stdinEnd: 4,
  /** Host → guest: the terminal's new size, `{"cols":..,"rows":..}`. */
  resize: 5,
  /** Host → guest: end the debug hold (`warden stop`); on an idle connection only. */
  release: 6,
  /** Guest → host: the command's stdout (or the terminal's output, or the file `cp` gets). */
  stdout: 16,
  /** Guest → host: the command's stderr. */
  stderr: 17,
  /** Guest → host, last: how the command ended (an InsideExit as JSON). */
  exit: 18,
  /** Guest → host, last: why the session could not run, `{"message":..}`. */
  error: 19,
} as const;
export type FrameKind = (typeof FRAME)[keyof typeof FRAME];

/** What a peer may send on a session's connection: each side refuses any other kind. */
export const TO_GUEST_KINDS: ReadonlySet<number> = new Set([
  FRAME.open,
  FRAME.stdin,
  FRAME.stdinEnd,
  FRAME.resize,
  FRAME.release,
]);
export const FROM_GUEST_KINDS: ReadonlySet<number> = new Set([
  FRAME.hello,
  FRAME.stdout,
  FRAME.stderr,
  FRAME.exit,
  FRAME.error,
]);

const HEADER_BYTES = 5;

/** One frame as bytes. Throws on a payload over the limit: the caller's mistake. */
export function frameBytes(kind: FrameKind, payload: Uint8Array = new Uint8Array()): Buffer {
  if (payload.byteLength > INSIDE_LIMITS.frameBytes) {
    throw new RangeError(`a frame of ${payload.byteLength} bytes is over the limit`);
  }
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(kind, 0);
  header.writeUInt32BE(payload.byteLength, 1);
  return Buffer.concat([header, payload]);
}

/** A frame of JSON (open, resize, exit, error, hello). */
export function jsonFrame(kind: FrameKind, value: unknown): Buffer {
  return frameBytes(kind, Buffer.from(JSON.stringify(value)));
}

/**
 * Splits a byte stream into frames in bounded memory. A length over the limit or a kind the
 * reader does not take ends the stream: `onBad` is told once and nothing more is read.
 */
export class FrameReader {
  private parts: Buffer[] = [];
  private bytes = 0;
  private broken = false;

  constructor(
    private readonly kinds: ReadonlySet<number>,
    private readonly onFrame: (kind: FrameKind, payload: Buffer) => void,
    private readonly onBad: (why: string) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.broken) return;
    this.parts.push(chunk);
    this.bytes += chunk.byteLength;
    // onFrame may end the stream (fail), so `broken` is read again each time round.
    while (this.bytes >= HEADER_BYTES) {
      if (this.isBroken()) return;
      const head = this.peek(HEADER_BYTES);
      const kind = head.readUInt8(0);
      const length = head.readUInt32BE(1);
      if (!this.kinds.has(kind)) {
        this.fail(`a frame of kind ${kind}, which this side does not take`);
        return;
      }
      if (length > INSIDE_LIMITS.frameBytes) {
        this.fail(`a frame of ${length} bytes, over ${INSIDE_LIMITS.frameBytes}`);
        return;
      }
      if (this.bytes < HEADER_BYTES + length) return;
      const whole = this.take(HEADER_BYTES + length);
      this.onFrame(kind as FrameKind, whole.subarray(HEADER_BYTES));
    }
  }

  private isBroken(): boolean {
    return this.broken;
  }

  private fail(why: string): void {
    this.broken = true;
    this.parts = [];
    this.bytes = 0;
    this.onBad(why);
  }

  private peek(n: number): Buffer {
    if ((this.parts[0]?.byteLength ?? 0) < n) this.parts = [Buffer.concat(this.parts)];
    return (this.parts[0] ?? Buffer.alloc(0)).subarray(0, n);
  }

  private take(n: number): Buffer {
    const all =
      this.parts.length === 1 ? (this.parts[0] ?? Buffer.alloc(0)) : Buffer.concat(this.parts);
    const out = Buffer.from(all.subarray(0, n));
    const rest = all.subarray(n);
    this.parts = rest.byteLength === 0 ? [] : [rest];
    this.bytes = rest.byteLength;
    return out;
  }
}

// eslint-disable-next-line no-control-regex -- a NUL cannot reach an argv or a path.
const NUL = /\u0000/;

const terminalSize = memo(() => z.number().int().min(1).max(INSIDE_LIMITS.terminalCells));

/**
 * A path in the workspace as `cp` names it: relative, plain parts only (no empty, `.` or `..`
 * part), no NUL. The runner also refuses a link on the way (insideFiles.ts).
 */
export const insidePathSchema = memo(() =>
  z
    .string()
    .min(1)
    .refine((p) => Buffer.byteLength(p) <= INSIDE_LIMITS.pathBytes, "a path over its limit")
    .refine((p) => !NUL.test(p), "a path with a NUL byte")
    .refine((p) => !p.startsWith("/"), "an absolute path")
    .refine(
      (p) => p.split("/").every((part) => part !== "" && part !== "." && part !== ".."),
      "a path with an empty, `.` or `..` part",
    ),
);

/** Why `path` is not a workspace path `cp` takes, or undefined when it is one. */
export function insidePathProblem(path: string): string | undefined {
  const parsed = insidePathSchema().safeParse(path);
  return parsed.success ? undefined : (parsed.error.issues[0]?.message ?? "not a path");
}

export const insideOpenSchema = memo(() =>
  z.discriminatedUnion("kind", [
    /** A command with pipes: its output streamed back, its exit code last. */
    z
      .object({
        v: z.literal(INSIDE_VERSION),
        kind: z.literal("exec"),
        argv: z
          .array(z.string().refine((a) => !NUL.test(a), "an argument with a NUL byte"))
          .min(1)
          .max(INSIDE_LIMITS.argv),
      })
      .strict(),
    /** A command (a login shell by default) on a terminal of its own. */
    z
      .object({
        v: z.literal(INSIDE_VERSION),
        kind: z.literal("shell"),
        argv: z
          .array(z.string().refine((a) => !NUL.test(a), "an argument with a NUL byte"))
          .max(INSIDE_LIMITS.argv)
          .optional(),
        cols: terminalSize(),
        rows: terminalSize(),
        term: z
          .string()
          .max(64)
          .regex(/^[A-Za-z0-9._+-]+$/)
          .optional(),
      })
      .strict(),
    /** A file into the workspace: its bytes follow as stdin frames. */
    z
      .object({
        v: z.literal(INSIDE_VERSION),
        kind: z.literal("put"),
        path: insidePathSchema(),
        bytes: z.number().int().min(0).max(INSIDE_LIMITS.copyBytes),
        mode: z.number().int().min(0).max(0o777),
      })
      .strict(),
    /** A file out of the workspace: its bytes come back as stdout frames. */
    z
      .object({
        v: z.literal(INSIDE_VERSION),
        kind: z.literal("get"),
        path: insidePathSchema(),
      })
      .strict(),
  ]),
);
export type InsideOpen = z.infer<ReturnType<typeof insideOpenSchema>>;
export type InsideKind = InsideOpen["kind"];

export const insideResizeSchema = memo(() =>
  z.object({ cols: terminalSize(), rows: terminalSize() }).strict(),
);

/** How a session's command ended: its code, or the signal that ended it. */
export const insideExitSchema = memo(() =>
  z
    .object({
      code: z.number().int().min(0).max(255).nullable(),
      signal: z
        .string()
        .regex(/^SIG[A-Z0-9]{1,12}$/)
        .optional(),
      /** For `get`: the bytes sent, which the host checks against what it received. */
      bytes: z.number().int().min(0).max(INSIDE_LIMITS.copyBytes).optional(),
    })
    .strict(),
);
export type InsideExit = z.infer<ReturnType<typeof insideExitSchema>>;

export const insideErrorSchema = memo(() =>
  z
    .object({
      message: z.string().refine((m) => Buffer.byteLength(m) <= 4096, "a message over 4 KiB"),
    })
    .strict(),
);

/** Parses a frame of JSON against `schema`; undefined for anything else. */
export function parseFrameJson<T>(schema: z.ZodType<T>, payload: Uint8Array): T | undefined {
  if (payload.byteLength > INSIDE_LIMITS.controlBytes) return undefined;
  try {
    const parsed = schema.safeParse(
      JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(payload)),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
