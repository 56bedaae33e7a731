// Several repositories in one task: the repositories bound beside the task's own (--workspace),
// how the share names them (workspaces.json), the results file of each one's changes, and what
// result.json may claim of each (result.ts). Both ends check them with these schemas.
import * as z from "zod/mini";
import { BadShareError } from "./errors.js";
import { cleanAbsolute } from "./historyInput.js";
import { parseJsonStrict } from "./json.js";
import { LIMITS } from "./limits.js";
import { SHARE_FILES } from "./names.js";
import { OID } from "./result.js";
import { miniSchema } from "./miniSchema.js";
import { firstIssue } from "./schemaIssue.js";
import { workspaceNameProblem } from "./workspaceName.js";

export { MAIN_WORKSPACE, WORKSPACE_NAME, workspaceNameProblem } from "./workspaceName.js";

const workspaceName = miniSchema(() =>
  z
    .string()
    .check(z.refine((name) => workspaceNameProblem(name) === undefined, "not a workspace name")),
);

/** The results file that carries a bound workspace's changes: `changes.<name>.bundle`. */
export function workspaceBundleName(name: string): `changes.${string}.bundle` {
  return `changes.${name}.bundle`;
}

/** A results file name of a workspace's changes, for the guest's own check of what it sends. */
export const WORKSPACE_BUNDLE = /^changes\.([A-Za-z][A-Za-z0-9_-]*)\.bundle$/;

/** Where a text from the host that names a path on the host may be shown, cleaned: bounded. */
const SOURCE_BYTES = 4096;

/** A text from the host that names a path on the host: bounded, and without a NUL byte. */
const sourceText = () =>
  z.string().check(
    z.maxLength(SOURCE_BYTES),
    z.refine((s) => !s.includes("\0"), "has a NUL byte"),
  );

const workspaceInput = miniSchema(() =>
  z.strictObject({
    name: workspaceName(),
    /** The commit the workspace starts from; the history repository holds it under historyRef. */
    base: z.string().check(z.regex(OID, "not a git object id")),
    /** The history repository (bare), bound read-only at this path inside the sandbox. */
    repository: cleanAbsolute(),
    /** The repository on the host the user bound, for the metadata server to name. */
    source: sourceText(),
  }),
);

export const workspacesInputSchema = miniSchema(() =>
  z
    .strictObject({
      /** The task's own repository on the host, named like the others. */
      mainSource: sourceText(),
      /** The bound repositories, in binding order: each is cloned at `<root>/<name>`. */
      workspaces: z.array(workspaceInput()).check(z.minLength(1), z.maxLength(LIMITS.workspaces)),
    })
    .check(
      z.superRefine((input, ctx) => {
        const seen = new Set<string>();
        for (const [i, { name }] of input.workspaces.entries()) {
          if (seen.has(name)) {
            ctx.addIssue({
              code: "custom",
              message: "a workspace name twice",
              path: ["workspaces", i],
            });
          }
          seen.add(name);
        }
      }),
    ),
);

export type WorkspacesInput = z.infer<ReturnType<typeof workspacesInputSchema>>;
export type WorkspaceInput = WorkspacesInput["workspaces"][number];

export function formatWorkspacesInput(input: WorkspacesInput): string {
  return JSON.stringify(workspacesInputSchema().parse(input), null, 2) + "\n";
}

/** Parses workspaces.json; throws BadShareError naming the first problem. */
export function parseWorkspacesInput(bytes: Uint8Array): WorkspacesInput {
  const what = `${SHARE_FILES.workspaces} in the task share`;
  const fail = (message: string): BadShareError => new BadShareError(message);
  const value = parseJsonStrict(bytes, LIMITS.workspacesInputBytes, what, fail);
  const parsed = workspacesInputSchema().safeParse(value);
  if (!parsed.success) throw fail(`${what} is not valid: ${firstIssue(parsed.error, "the file")}`);
  return parsed.data;
}
