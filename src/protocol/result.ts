// result.json: what the guest claims happened. Every text in it is free text from a possibly
// hostile sandbox: bounded here, cleaned before it is shown.
import { z } from "zod";
import { cleanLine } from "./clean.js";
import { BadResultsError } from "./errors.js";
import { LIMITS } from "./limits.js";
import { parseJsonStrict } from "./json.js";
import { RESULT_FILE_NAMES, type ResultFileName } from "./names.js";

/** A git object id: 40 (sha1) or 64 (sha256) lowercase hex digits. */
export const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

const oid = z.string().regex(OID, "not a git object id");
const text = z.string().max(LIMITS.resultTextBytes);

export const resultSchema = z
  .object({
    base: oid.optional(),
    head: oid.optional(),
    agent: z.string().max(LIMITS.settingTextBytes),
    /** Absent when the agent never ran. */
    agentExitCode: z.number().int().min(-1).max(255).optional(),
    /** The agent's last stdout line, when it is a JSON object of at most 64 KiB. */
    agentResult: z
      .record(z.string(), z.unknown())
      .refine(
        (v) => Buffer.byteLength(JSON.stringify(v)) <= LIMITS.agentResultBytes,
        "agentResult is over 64 KiB",
      )
      .optional(),
    timedOut: z.boolean(),
    leftovers: z.boolean(),
    truncated: z.array(z.enum(RESULT_FILE_NAMES as [ResultFileName, ...ResultFileName[]])).max(4),
    warnings: z.array(text).max(LIMITS.resultWarnings),
    error: text.optional(),
  })
  .strict();

export type Result = z.infer<typeof resultSchema>;

/** Parses and checks result.json from its bytes. Throws BadResultsError. */
export function parseResult(bytes: Uint8Array): Result {
  const fail = (m: string) =>
    new BadResultsError(m, {
      hint: "the sandbox sent a result warden does not take; see the guest log",
    });
  const value = parseJsonStrict(bytes, LIMITS.resultBytes, "result.json", fail);
  const parsed = resultSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? issue.path.join(".") : "result.json";
    throw fail(`bad result.json: ${cleanLine(where)}: ${cleanLine(issue?.message ?? "invalid")}`);
  }
  return parsed.data;
}

/** The bytes of result.json for a result; checks it first so the guest never sends a bad one. */
export function formatResult(result: Result): Buffer {
  const checked = resultSchema.parse(result);
  return Buffer.from(JSON.stringify(checked) + "\n");
}
