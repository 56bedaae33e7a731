// result.json: what the guest claims happened. Every text in it is free text from a possibly
// hostile sandbox: bounded here, cleaned before it is shown.
import * as z from "zod/mini";
import { BadResultsError } from "./errors.js";
import { LIMITS } from "./limits.js";
import { parseJsonStrict } from "./json.js";
import { miniSchema } from "./miniSchema.js";
import { firstIssue } from "./schemaIssue.js";
import { RESULT_FILE_NAMES, type ResultFileName } from "./names.js";
import { workspaceNameProblem } from "./workspaceName.js";

/** A git object id: 40 (sha1) or 64 (sha256) lowercase hex digits. */
export const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

const oid = miniSchema(() => z.string().check(z.regex(OID, "not a git object id")));
// The limit is in bytes of UTF-8, as its name says, not in UTF-16 code units.
const text = miniSchema(() =>
  z
    .string()
    .check(
      z.refine(
        (t) => Buffer.byteLength(t) <= LIMITS.resultTextBytes,
        `a text is over ${LIMITS.resultTextBytes} bytes`,
      ),
    ),
);

const workspaceName = miniSchema(() =>
  z
    .string()
    .check(z.refine((name) => workspaceNameProblem(name) === undefined, "not a workspace name")),
);

export const resultSchema = miniSchema(() =>
  z.strictObject({
    base: z.optional(oid()),
    head: z.optional(oid()),
    agent: z.string().check(z.maxLength(LIMITS.settingTextBytes)),
    /** Absent when the agent never ran. */
    agentExitCode: z.optional(z.int().check(z.gte(-1), z.lte(255))),
    /** The agent's last stdout line, when it is a JSON object of at most 64 KiB. */
    agentResult: z.optional(
      z
        .record(z.string(), z.unknown())
        .check(
          z.refine(
            (v) => Buffer.byteLength(JSON.stringify(v)) <= LIMITS.agentResultBytes,
            "agentResult is over 64 KiB",
          ),
        ),
    ),
    /**
     * The agent's final answer, as its adapter read it from the agent's stream (the message of
     * its last successful result), when it gave one. A claim like agentResult.
     */
    answer: z.optional(text()),
    timedOut: z.boolean(),
    leftovers: z.boolean(),
    truncated: z
      .array(z.enum(RESULT_FILE_NAMES as [ResultFileName, ...ResultFileName[]]))
      .check(z.maxLength(4)),
    warnings: z.array(text()).check(z.maxLength(LIMITS.resultWarnings)),
    error: z.optional(text()),
    /** The stable code of the failure in `error`, when it was one of warden's own errors. */
    errorCode: z.optional(
      z
        .string()
        .check(
          z.regex(/^[A-Z][A-Z0-9_]*$/, "not an error code"),
          z.maxLength(LIMITS.errorCodeBytes),
        ),
    ),
    /**
     * What the guest claims of each bound workspace (--workspace), in binding order: the same
     * claims as base, head and leftovers make of the task's own repository.
     */
    workspaces: z.optional(
      z
        .array(
          z.strictObject({
            name: workspaceName(),
            base: z.optional(oid()),
            head: z.optional(oid()),
            leftovers: z.boolean(),
          }),
        )
        .check(z.maxLength(LIMITS.workspaces)),
    ),
  }),
);

export type Result = z.infer<ReturnType<typeof resultSchema>>;

/** What is wrong with a result: its path and message may be sandbox text. */
function describe(error: z.core.$ZodError): string {
  return `bad result.json: ${firstIssue(error, "result.json")}`;
}

/** Parses and checks result.json from its bytes. Throws BadResultsError. */
export function parseResult(bytes: Uint8Array): Result {
  const fail = (m: string) =>
    new BadResultsError(m, {
      hint: "the sandbox sent a result warden does not take; see the guest log",
    });
  const value = parseJsonStrict(bytes, LIMITS.resultBytes, "result.json", fail);
  const parsed = resultSchema().safeParse(value);
  if (!parsed.success) throw fail(describe(parsed.error));
  return parsed.data;
}

/**
 * The bytes of result.json for a result; checks it first so the guest never sends a bad one.
 * Throws BadResultsError.
 */
export function formatResult(result: Result): Buffer {
  const parsed = resultSchema().safeParse(result);
  if (!parsed.success) {
    throw new BadResultsError(describe(parsed.error), {
      hint: "this is a bug in the guest: it must bound and check its result before it sends it",
    });
  }
  const bytes = Buffer.from(JSON.stringify(parsed.data) + "\n");
  if (bytes.length > LIMITS.resultBytes) {
    throw new BadResultsError(`result.json is ${bytes.length} bytes, over ${LIMITS.resultBytes}`, {
      hint: "this is a bug in the guest: it must bound its warnings and texts",
    });
  }
  return bytes;
}
