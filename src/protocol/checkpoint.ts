// Checkpoints: at each turn boundary the runner sends the host the workspace's changes since the
// base (a bundle of TASK_BRANCH, whose tip is a commit of the uncommitted work when there is any)
// and the agent's session file; an attach after an interruption, or a continuation, gets the
// latest one back in its share and starts from it. The host treats every piece as hostile: the
// bundle's header is checked against the base, each part is bounded, and the session file is
// read line by line before it is kept.
import * as z from "zod/mini";
import { miniSchema } from "./miniSchema.js";
import { OID } from "./result.js";

const KiB = 1024;
const MiB = 1024 * KiB;

export const CHECKPOINT_LIMITS = {
  /**
   * The bundle of one checkpoint. It is sent again at every turn boundary the throttle allows, so
   * it is kept well below the bundle of changes (1 GiB): a task past this is resumed from its
   * last checkpoint that fitted, and says so.
   */
  bundleBytes: 256 * MiB,
  /** The agent's session file: a long conversation with its tool outputs, not a data set. */
  sessionBytes: 64 * MiB,
  /** One line of a session file; the agent writes one JSON object a line. */
  sessionLineBytes: 16 * MiB,
  /** One piece on the channel, before base64: four thirds of it stay inside a request line. */
  pieceBytes: 256 * KiB,
  /** The text the runner gives an agent it resumes: a note, or a continuation's prompt. */
  noteBytes: 4 * KiB,
} as const;

/** The share's names for a checkpoint an attach starts from. */
export const CHECKPOINT_SHARE_FILES = {
  bundle: "checkpoint.bundle",
  session: "session.jsonl",
} as const;

/** The parts of a checkpoint, as the channel names them. */
export const CHECKPOINT_PARTS = ["bundle", "session"] as const;
export type CheckpointPart = (typeof CHECKPOINT_PARTS)[number];

/**
 * An agent's session id: Claude Code's and Gemini's are UUIDs, Codex's a UUID too; a plain token
 * of letters, digits and `-` is all warden passes on, so it can never be an option or a path.
 */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9-]{0,127}$/;

/** The message of the commit a checkpoint makes of uncommitted work, on top of the head. */
export const CHECKPOINT_WIP_MESSAGE = "warden checkpoint: uncommitted work";

/**
 * Why an attach resumes: the task's run was interrupted (its executor died, the machine
 * rebooted), it was suspended (on request or at a usage limit) and is run on, or it continues a
 * finished task's conversation.
 */
export const RESUME_REASONS = ["interrupted", "suspended", "continued"] as const;
export type ResumeReason = (typeof RESUME_REASONS)[number];

/**
 * task.json's `resume`: what the share's checkpoint holds. `head` is the commit the task branch
 * was at; `tip`, when there was uncommitted work, the checkpoint's commit of it (whose parent is
 * `head`); both absent when the checkpoint changed nothing. `sessionId` names the session file
 * the share holds.
 */
export const resumeSettingsSchema = miniSchema(() =>
  z
    .strictObject({
      reason: z.enum(RESUME_REASONS),
      head: z.optional(z.string().check(z.regex(OID, "not a git object id"))),
      tip: z.optional(z.string().check(z.regex(OID, "not a git object id"))),
      sessionId: z.optional(z.string().check(z.regex(SESSION_ID, "not a session id"))),
    })
    .check(z.refine((r) => r.tip === undefined || r.head !== undefined, "a tip without a head")),
);

export type ResumeSettings = z.infer<ReturnType<typeof resumeSettingsSchema>>;

/** The note an interrupted agent is resumed with. */
export const INTERRUPTED_NOTE =
  "Your run was interrupted (the process running you stopped) and has been resumed from your " +
  "last completed step: the workspace is as it was then, uncommitted changes included, and " +
  "anything after that step is lost. Check where you were and carry on with the task.";

/** The note an agent is resumed with after its task was suspended and is run on. */
export const SUSPENDED_NOTE =
  "Your run was paused (the task was suspended) and has now been resumed from your last " +
  "completed step: the workspace is as it was then, uncommitted changes included, and anything " +
  "after that step is lost. Check where you were and carry on with the task.";

/**
 * Checks a session file's bytes line by line: UTF-8, every line a JSON object, none over its
 * bound, the whole within its bound, and each line as `checkLine` (the agent's own shape, the
 * first line being 0) says. Returns the number of lines; throws with what is wrong.
 */
export function checkSessionFile(
  bytes: Uint8Array,
  checkLine: (line: Readonly<Record<string, unknown>>, index: number) => void,
): number {
  if (bytes.byteLength > CHECKPOINT_LIMITS.sessionBytes) {
    throw new Error(`a session file over ${CHECKPOINT_LIMITS.sessionBytes} bytes`);
  }
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  let lines = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    if (Buffer.byteLength(line) > CHECKPOINT_LIMITS.sessionLineBytes) {
      throw new Error(`a session line over ${CHECKPOINT_LIMITS.sessionLineBytes} bytes`);
    }
    const value: unknown = JSON.parse(line);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new Error("a session line that is not a JSON object");
    }
    checkLine(value as Record<string, unknown>, lines);
    lines++;
  }
  return lines;
}
