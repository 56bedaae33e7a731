// The top of the working tree that holds a directory, found as git finds it (the nearest `.git`
// upward) without starting git in the common case: every `warden` verb that reads a repository's
// config file asks, and a git process costs more than the rest of reading the config. Whatever
// the walk cannot be sure of, git itself answers.
import { execFile } from "node:child_process";
import { closeSync, constants, readSync } from "node:fs";
import { lstat, realpath, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { promisify } from "node:util";
import { openNoFollowSync } from "../store/index.js";
import { CONFIG_LIMITS } from "./limits.js";

/**
 * Git's variables that move or bound its search for a repository: with any of them set, git's
 * own rules decide, so git is asked.
 */
const GIT_SEARCH_VARIABLES = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
] as const;

/** A repository's config that names another working tree, or none: git is asked then. */
const MOVED_WORKING_TREE = /^\s*(worktree\s*=|bare\s*=\s*true\b)/im;

/** What the walk found: the top, no repository at all, or a case only git can settle. */
type Walked = { kind: "top"; top: string } | { kind: "none" } | { kind: "ask git" };

/**
 * The top of the working tree `dir` is in (its real path, as `git rev-parse --show-toplevel`
 * prints it), or undefined when `dir` is in none (no repository, or a bare one, or no such
 * directory).
 */
export async function workingTreeTop(dir: string): Promise<string | undefined> {
  // Git runs with this process's environment, so that is the one whose variables count.
  const redirected = GIT_SEARCH_VARIABLES.some((name) => process.env[name] !== undefined);
  const walked: Walked = redirected ? { kind: "ask git" } : await walkUp(dir);
  switch (walked.kind) {
    case "top":
      return walked.top;
    case "none":
      return undefined;
    case "ask git":
      return askGit(dir);
  }
}

/** Walks from `dir` to the root looking for `.git`, as git does; unsure cases are git's. */
async function walkUp(dir: string): Promise<Walked> {
  let here: string;
  let device: number;
  try {
    here = await realpath(dir);
    const start = await stat(here);
    if (!start.isDirectory()) return { kind: "ask git" };
    // Git does not cross into another filesystem on its way up unless told to.
    device = start.dev;
  } catch {
    return { kind: "ask git" };
  }
  for (;;) {
    // Inside a repository's own directory git has no working tree to name.
    if (basename(here) === ".git") return { kind: "ask git" };
    const entry = await lookAt(join(here, ".git"));
    if (entry === "repository") return { kind: "top", top: here };
    if (entry === "unsure") return { kind: "ask git" };
    const parent = dirname(here);
    if (parent === here) return { kind: "none" };
    try {
      if ((await stat(parent)).dev !== device) return { kind: "ask git" };
    } catch {
      return { kind: "ask git" };
    }
    here = parent;
  }
}

/**
 * What a `.git` entry is: a repository whose working tree is the directory that holds it, no
 * entry at all, or something git judges by rules of its own (a directory that may not be a
 * repository, a config that moves the working tree, another user's repository, an entry that
 * cannot be read).
 */
async function lookAt(path: string): Promise<"repository" | "absent" | "unsure"> {
  try {
    const entry = await lstat(path);
    // Git refuses a repository another user owns unless its config says it is safe.
    if (entry.uid !== process.geteuid?.()) return "unsure";
    if (entry.isFile()) {
      return readSmallFile(path)?.startsWith("gitdir: ") === true ? "repository" : "unsure";
    }
    if (!entry.isDirectory()) return "unsure";
    await stat(join(path, "HEAD"));
    const config = readSmallFile(join(path, "config"));
    return config === undefined || MOVED_WORKING_TREE.test(config) ? "unsure" : "repository";
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === "ENOENT" || code === "ENOTDIR" ? "absent" : "unsure";
  }
}

/**
 * A small file's text, never through a link; undefined when it cannot be read or is bigger than
 * CONFIG_LIMITS.gitFileBytes.
 */
function readSmallFile(path: string): string | undefined {
  let fd: number;
  try {
    fd = openNoFollowSync(path, constants.O_RDONLY);
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(CONFIG_LIMITS.gitFileBytes + 1);
    const read = readSync(fd, buffer, 0, buffer.length, 0);
    return read > CONFIG_LIMITS.gitFileBytes
      ? undefined
      : buffer.subarray(0, read).toString("utf8");
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** `git rev-parse --show-toplevel` in `dir`; undefined when git finds no working tree. */
async function askGit(dir: string): Promise<string | undefined> {
  try {
    const { stdout } = await promisify(execFile)("git", ["rev-parse", "--show-toplevel"], {
      cwd: dir,
      encoding: "utf8",
    });
    const top = stdout.trim();
    return top === "" ? undefined : top;
  } catch {
    return undefined;
  }
}
