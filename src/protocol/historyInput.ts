// history.json: where the sandbox finds the start commit's history. The host writes it in place of
// input.bundle; the runner clones the named repository sharing its objects (git alternates), so
// a task's start does not grow with the history. Both sides check it with the same schema.
import { posix } from "node:path";
import * as z from "zod/mini";
import { BadShareError } from "./errors.js";
import { parseJsonStrict } from "./json.js";
import { LIMITS } from "./limits.js";
import { SHARE_FILES } from "./names.js";
import { OID } from "./result.js";
import { miniSchema } from "./miniSchema.js";
import { firstIssue } from "./schemaIssue.js";

/** The ref the history repository holds a base under: a tag, so that `clone --branch` takes it. */
export function historyRef(base: string): string {
  return `refs/tags/${base}`;
}

// A path git is given as an argument and writes into objects/info/alternates: absolute, clean,
// and without a newline (alternates is one path a line) or any other control character.
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f]/;

export const cleanAbsolute = miniSchema(() =>
  z.string().check(
    z.minLength(2),
    z.maxLength(4096),
    z.refine(
      (path) => posix.isAbsolute(path) && posix.normalize(path) === path && !path.endsWith("/"),
      "not a clean absolute path",
    ),
    z.refine((path) => !CONTROL.test(path), "has a control character"),
  ),
);

export const historyInputSchema = miniSchema(() =>
  z.strictObject({
    /** The start commit: the history repository holds it under historyRef(base). */
    base: z.string().check(z.regex(OID, "not a git object id")),
    /** The history repository (a bare git directory), at this path inside the sandbox too. */
    repository: cleanAbsolute(),
  }),
);

export type HistoryInput = z.infer<ReturnType<typeof historyInputSchema>>;

export function formatHistoryInput(input: HistoryInput): string {
  return JSON.stringify(historyInputSchema().parse(input), null, 2) + "\n";
}

/** Parses history.json; throws BadShareError naming the first problem. */
export function parseHistoryInput(bytes: Uint8Array): HistoryInput {
  const what = `${SHARE_FILES.history} in the task share`;
  const fail = (message: string): BadShareError => new BadShareError(message);
  const value = parseJsonStrict(bytes, LIMITS.historyInputBytes, what, fail);
  const parsed = historyInputSchema().safeParse(value);
  if (!parsed.success) throw fail(`${what} is not valid: ${firstIssue(parsed.error, "the file")}`);
  return parsed.data;
}
