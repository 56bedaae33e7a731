// The task share, read and checked before anything runs. The host checked it too, but the
// runner refuses anything it would not itself have written: the two ends may be different builds.
import { lstat, open } from "node:fs/promises";
import { shareSkills } from "./shareSkills.js";
import { join } from "node:path";
import { errorMessage } from "../lang/index.js";
import {
  BadShareError,
  LIMITS,
  SHARE_FILES,
  cleanLine,
  parseHistoryInput,
  parseSettings,
  parseWorkspacesInput,
  type HistoryInput,
  type WorkspacesInput,
  type Settings,
} from "../protocol/index.js";

/**
 * Where the start commit comes from: a bundle to clone, or a history repository (bound read-only
 * into the sandbox) whose objects the workspace borrows.
 */
export type ShareInput =
  | { readonly kind: "bundle"; readonly path: string }
  | { readonly kind: "history"; readonly history: HistoryInput };

export interface Share {
  readonly settings: Settings;
  readonly prompt: string;
  readonly input: ShareInput;
  /** The repositories bound beside the task's own (workspaces.json), when there are any. */
  readonly workspaces?: WorkspacesInput;
  /** The share's folder of skills, when the settings name some (shareSkills.ts). */
  readonly skills?: string;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function describe(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "it is missing";
  if (code === "EACCES") return "it cannot be read";
  return cleanLine(errorMessage(error));
}

/**
 * Reads at most `max` + 1 bytes of a regular file, so that an oversized file is seen as such
 * without ever being read whole.
 */
async function readBounded(dir: string, name: string, max: number): Promise<Buffer> {
  const path = join(dir, name);
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new BadShareError(`cannot open ${name} in the task share: ${describe(error)}`, {
      hint: `the host must put ${name} into the share it mounts at ${dir}`,
    });
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new BadShareError(`${name} in the task share is not a regular file`);
    const buffer = Buffer.alloc(Math.min(stat.size, max) + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    if (filled > max) {
      throw new BadShareError(`${name} in the task share is over its limit of ${max} bytes`);
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

async function checkBundlePresent(dir: string): Promise<string> {
  const path = join(dir, SHARE_FILES.input);
  let handle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    throw new BadShareError(
      `cannot open ${SHARE_FILES.input} in the task share: ${describe(error)}`,
      { hint: "the host must put the git bundle of the start commit into the share" },
    );
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size === 0) {
      throw new BadShareError(`${SHARE_FILES.input} in the task share is empty or not a file`);
    }
  } finally {
    await handle.close();
  }
  return path;
}

/** history.json when the share has one; undefined when it has none (then input.bundle is used). */
async function readHistoryInput(dir: string): Promise<HistoryInput | undefined> {
  const present = await lstat(join(dir, SHARE_FILES.history)).then(
    () => true,
    (error: unknown) => (error as NodeJS.ErrnoException).code !== "ENOENT",
  );
  if (!present) return undefined;
  return parseHistoryInput(await readBounded(dir, SHARE_FILES.history, LIMITS.historyInputBytes));
}

/** workspaces.json when the share has one; undefined when the task binds no other repository. */
async function readWorkspacesInput(dir: string): Promise<WorkspacesInput | undefined> {
  const present = await lstat(join(dir, SHARE_FILES.workspaces)).then(
    () => true,
    (error: unknown) => (error as NodeJS.ErrnoException).code !== "ENOENT",
  );
  if (!present) return undefined;
  return parseWorkspacesInput(
    await readBounded(dir, SHARE_FILES.workspaces, LIMITS.workspacesInputBytes),
  );
}

/**
 * Reads task.json, prompt.md and history.json, or checks input.bundle where the share has no
 * history.json. Throws BadShareError, BadSettingsError.
 */
export async function readShare(dir: string): Promise<Share> {
  const settings = parseSettings(
    await readBounded(dir, SHARE_FILES.settings, LIMITS.settingsBytes),
  );
  const promptBytes = await readBounded(dir, SHARE_FILES.prompt, LIMITS.promptBytes);
  if (promptBytes.length === 0) {
    throw new BadShareError(`${SHARE_FILES.prompt} in the task share is empty`, {
      hint: "a task needs a prompt that says what to do",
    });
  }
  let prompt: string;
  try {
    prompt = utf8.decode(promptBytes);
  } catch {
    throw new BadShareError(`${SHARE_FILES.prompt} in the task share is not UTF-8`);
  }
  const history = await readHistoryInput(dir);
  const input: ShareInput =
    history === undefined
      ? { kind: "bundle", path: await checkBundlePresent(dir) }
      : { kind: "history", history };
  const workspaces = await readWorkspacesInput(dir);
  const skills = await shareSkills(dir, settings.skills);
  return {
    settings,
    prompt,
    input,
    ...(workspaces === undefined ? {} : { workspaces }),
    ...(skills === undefined ? {} : { skills }),
  };
}
