// The key of a setup's snapshot: a digest of what the setup depends on. That is the entries, at
// the task's base commit, of the files setup reads (its key patterns; by default the lockfiles
// found anywhere in the repository), the setup itself (commands, goal, the names of its
// variables, the agent that runs its goal) and the repository. A change in any of them runs
// setup again; anything else in the tree may change and the snapshot still holds.
import { createHash } from "node:crypto";
import { hostGit } from "../hostGit.js";
import { SETUP_CACHE_LIMITS } from "./limits.js";

/** The lockfiles a setup depends on when its config names none: the package managers' own. */
export const DEFAULT_KEY_PATTERNS = [
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lockb",
  "Cargo.lock",
  "poetry.lock",
  "uv.lock",
  "Pipfile.lock",
  "pdm.lock",
  "requirements*.txt",
  "Gemfile.lock",
  "go.sum",
  "composer.lock",
  "mix.lock",
  "pubspec.lock",
  "Podfile.lock",
  "flake.lock",
] as const;

/** Bumped when the snapshot's layout or the key's makeup changes: old entries then never match. */
const KEY_VERSION = 1;

/**
 * A glob as a regular expression: `**` any path, `*` and `?` within one part. A pattern without
 * a slash matches a file's name in any directory. Pure.
 */
export function globPattern(glob: string): RegExp {
  let source = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] ?? "";
    if (c === "*" && glob[i + 1] === "*") {
      source += ".*";
      i++;
      if (glob[i + 1] === "/") i++;
    } else if (c === "*") source += "[^/]*";
    else if (c === "?") source += "[^/]";
    else source += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return glob.includes("/") ? new RegExp(`^${source}$`) : new RegExp(`(?:^|/)${source}$`);
}

export interface TreeEntry {
  readonly mode: string;
  readonly oid: string;
  readonly path: string;
}

/** Reads `git ls-tree -r -z` output into entries. Pure. */
export function parseTree(output: string): TreeEntry[] {
  const entries: TreeEntry[] = [];
  for (const record of output.split("\0")) {
    const tab = record.indexOf("\t");
    if (tab === -1) continue;
    const [mode = "", , oid = ""] = record.slice(0, tab).split(" ");
    entries.push({ mode, oid, path: record.slice(tab + 1) });
  }
  return entries;
}

export interface KeyInput {
  readonly gitDir: string;
  readonly base: string;
  /** The key patterns of the setup; empty: DEFAULT_KEY_PATTERNS. */
  readonly patterns: readonly string[];
  readonly commands: readonly string[];
  readonly goal: string | undefined;
  readonly envNames: readonly string[];
  readonly agent: string;
}

/** The digest of the key's parts. Pure: the tree entries are given. */
export function keyDigest(input: KeyInput, entries: readonly TreeEntry[]): string {
  const patterns = (input.patterns.length === 0 ? DEFAULT_KEY_PATTERNS : input.patterns).map(
    globPattern,
  );
  const matched = entries
    .filter((entry) => patterns.some((pattern) => pattern.test(entry.path)))
    .slice(0, SETUP_CACHE_LIMITS.keyEntries)
    .map((entry) => [entry.mode, entry.oid, entry.path]);
  const parts = {
    version: KEY_VERSION,
    repository: input.gitDir,
    files: matched,
    commands: input.commands,
    goal: input.goal ?? null,
    envNames: [...input.envNames].sort(),
    agent: input.goal === undefined ? null : input.agent,
  };
  return createHash("sha256").update(JSON.stringify(parts)).digest("hex");
}

/** The key of a setup at the task's base, read from the repository with the host's own git. */
export async function setupCacheKey(input: KeyInput): Promise<string> {
  const { stdout } = await hostGit(["ls-tree", "-r", "-z", "--full-tree", input.base], {
    cwd: input.gitDir,
  });
  return keyDigest(input, parseTree(stdout));
}
