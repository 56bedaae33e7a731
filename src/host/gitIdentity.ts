// Who the agent's commits are by: the name and email the user gave, else the ones git itself
// would use in the repository (its own config, then the user's), else nobody, and the runner
// falls back to its default. Read once when the task is made, so a rerun commits as the same.
import type { z } from "zod";
import { cleanLine, GIT_EMAIL, GIT_NAME, LIMITS } from "../protocol/index.js";
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
  readonly schema: z.ZodType<string>;
}

const PARTS: readonly IdentityPart[] = [
  { field: "gitName", flag: "--git-name", key: "user.name", schema: GIT_NAME },
  { field: "gitEmail", flag: "--git-email", key: "user.email", schema: GIT_EMAIL },
];

/** The value git reads for `key` in the repository, or undefined when it is unset or empty. */
async function configValue(repo: string, key: string): Promise<string | undefined> {
  // --default makes an unset key print nothing and exit 0, so that a failure is a real one.
  const out = await hostGit(["config", "--default", "", "--get", key], { cwd: repo });
  const value = out.stdout.replace(/\n$/, "");
  return value === "" ? undefined : value;
}

/**
 * The identity for a task on `repo`: each part from `given` when set, else from git's config.
 * A value that cannot be a commit's identity is refused in the words of where it came from.
 */
export async function resolveGitIdentity(repo: string, given: GitIdentity): Promise<GitIdentity> {
  const identity: GitIdentity = {};
  // The parts git is asked for are read at the same time, one git each, then checked in order.
  const configured = await Promise.all(
    PARTS.map((part) =>
      given[part.field] === undefined ? configValue(repo, part.key) : Promise.resolve(undefined),
    ),
  );
  for (const [index, part] of PARTS.entries()) {
    const flagged = given[part.field];
    const value = flagged ?? configured[index];
    if (value === undefined) continue;
    const checked = part.schema.safeParse(value);
    if (!checked.success) {
      const source =
        flagged !== undefined ? part.flag : `the repository's ${part.key} (git config)`;
      throw new BadTaskOptionError(
        `${source} ${JSON.stringify(cleanLine(value))} cannot be a commit's ${part.key}: ` +
          (checked.error.issues[0]?.message ?? "it is refused").replace(/^git(Name|Email) /, "it "),
        {
          hint:
            flagged !== undefined
              ? `give ${part.flag} a value without control characters or angle brackets, at most ${LIMITS.settingTextBytes} bytes`
              : `pass ${part.flag}, or fix ${part.key} with \`git config ${part.key}\``,
        },
      );
    }
    identity[part.field] = checked.data;
  }
  return identity;
}
