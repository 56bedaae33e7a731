// Who the agent's commits are by: the name and email the user gave, else the ones git itself
// would use for an author in the repository (GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL, then its own
// config, then the user's, with GIT_CONFIG_GLOBAL and GIT_CONFIG_NOSYSTEM as git reads them),
// else nobody, and the runner falls back to its default. Read once when the task is made, so a rerun commits as the same.
import type { ZodMiniType } from "zod/mini";
import { cleanLine, gitEmailSchema, gitNameSchema, LIMITS } from "../protocol/index.js";
import { BadTaskOptionError } from "./errors.js";
import { hostGit } from "./hostGit.js";

export interface GitIdentity {
  gitName?: string;
  gitEmail?: string;
}

/** One part of the identity: its flag, the git config key it is read from, and its rule. */
interface IdentityPart {
  readonly field: keyof GitIdentity;
  readonly flag: string;
  readonly key: string;
  /** The variable that overrides the config for an author, as git reads it. */
  readonly variable: string;
  readonly schema: () => ZodMiniType<string>;
}

const PARTS: readonly IdentityPart[] = [
  {
    field: "gitName",
    flag: "--git-name",
    key: "user.name",
    variable: "GIT_AUTHOR_NAME",
    schema: gitNameSchema,
  },
  {
    field: "gitEmail",
    flag: "--git-email",
    key: "user.email",
    variable: "GIT_AUTHOR_EMAIL",
    schema: gitEmailSchema,
  },
];

/** The variables that choose which config files git reads; hostGit passes no GIT_* otherwise. */
const CONFIG_CHOICE_VARIABLES = ["GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"] as const;

type Environment = Readonly<Record<string, string | undefined>>;

/** Where a part's value came from, in the words of an error about it. */
type Source = "flag" | "variable" | "config";
function sourceWords(part: IdentityPart, source: Source): string {
  switch (source) {
    case "flag":
      return part.flag;
    case "variable":
      return `the variable ${part.variable}`;
    case "config":
      return `the repository's ${part.key} (git config)`;
  }
}

function fixWords(part: IdentityPart, source: Source): string {
  switch (source) {
    case "flag":
      return `give ${part.flag} a value without control characters or angle brackets, at most ${LIMITS.settingTextBytes} bytes`;
    case "variable":
      return `pass ${part.flag}, or fix or unset ${part.variable}`;
    case "config":
      return `pass ${part.flag}, or fix ${part.key} with \`git config ${part.key}\``;
  }
}

/**
 * The values git reads for `keys` in the repository, one git call for all: the last value of
 * each key wins, as `git config --get` has it; a key unset or empty is left out.
 */
async function configValues(
  repo: string,
  keys: readonly string[],
  env: Environment,
): Promise<Map<string, string>> {
  const choice: Record<string, string> = {};
  for (const name of CONFIG_CHOICE_VARIABLES) {
    const value = env[name];
    if (value !== undefined) choice[name] = value;
  }
  const values = new Map<string, string>();
  if (keys.length === 0) return values;
  // Each entry is the key, a newline and the value, ended by NUL; a key with no value at all
  // (`[user] name`) has no newline. Keys come lowercased, as the ones asked for are.
  const out = await hostGit(["config", "--list", "-z"], { cwd: repo, env: choice });
  for (const entry of out.stdout.split("\0")) {
    const newline = entry.indexOf("\n");
    const key = newline === -1 ? entry : entry.slice(0, newline);
    if (!keys.includes(key)) continue;
    const value = newline === -1 ? "" : entry.slice(newline + 1);
    if (value === "") values.delete(key);
    else values.set(key, value);
  }
  return values;
}

/**
 * The identity for a task on `repo`: each part from `given` when set, else from git's config.
 * A value that cannot be a commit's identity is refused in the words of where it came from.
 */
export async function resolveGitIdentity(
  repo: string,
  given: GitIdentity,
  env: Environment = process.env,
): Promise<GitIdentity> {
  const identity: GitIdentity = {};
  const chosen = PARTS.map((part): { value: string; source: Source } | undefined => {
    const flagged = given[part.field];
    if (flagged !== undefined) return { value: flagged, source: "flag" };
    const variable = env[part.variable];
    return variable === undefined || variable === ""
      ? undefined
      : { value: variable, source: "variable" };
  });
  // The parts git is asked for are read in one call, then checked in order.
  const asked = PARTS.filter((_, index) => chosen[index] === undefined).map((part) => part.key);
  const values = await configValues(repo, asked, env);
  const configured = PARTS.map((part) => values.get(part.key));
  for (const [index, part] of PARTS.entries()) {
    const config = configured[index];
    const found =
      chosen[index] ??
      (config === undefined ? undefined : { value: config, source: "config" as const });
    if (found === undefined) continue;
    const checked = part.schema().safeParse(found.value);
    if (!checked.success) {
      const why = (checked.error.issues[0]?.message ?? "it is refused").replace(
        /^git(Name|Email) /,
        "it ",
      );
      throw new BadTaskOptionError(
        `${sourceWords(part, found.source)} ${JSON.stringify(cleanLine(found.value))} cannot be a commit's ${part.key}: ${why}`,
        { hint: fixWords(part, found.source) },
      );
    }
    identity[part.field] = checked.data;
  }
  return identity;
}
