// Where the store lives: --data-dir, else WARDEN_DATA_DIR, else $XDG_DATA_HOME/warden, else
// ~/.local/share/warden. Resolution is a pure function; creating the directories is separate.
import { mkdir } from "node:fs/promises";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { cleanLine, ENV } from "../protocol/index.js";
import { DataDirError } from "./errors.js";

export interface DataDirChoice {
  /** The directory, absolute. */
  path: string;
  /** Where it came from, for `warden doctor` and error messages. */
  source: "option" | "WARDEN_DATA_DIR" | "XDG_DATA_HOME" | "home";
}

function nonBlank(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : value;
}

/**
 * Picks the data directory. A blank variable counts as unset, and a relative XDG_DATA_HOME is
 * ignored, as the XDG Base Directory specification says.
 */
export function resolveDataDir(
  option: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
  home: () => string = homedir,
): DataDirChoice {
  const given = nonBlank(option);
  if (given !== undefined) return { path: resolve(given), source: "option" };
  const fromEnv = nonBlank(env[ENV.dataDir]);
  if (fromEnv !== undefined) return { path: resolve(fromEnv), source: "WARDEN_DATA_DIR" };
  const xdg = nonBlank(env.XDG_DATA_HOME);
  if (xdg !== undefined && isAbsolute(xdg)) {
    return { path: join(xdg, "warden"), source: "XDG_DATA_HOME" };
  }
  const homeDir = nonBlank(env.HOME) ?? home();
  return { path: join(homeDir, ".local", "share", "warden"), source: "home" };
}

/** The directories inside the data directory. */
export const DATA_DIRS = {
  /** One directory per task, named by its id. */
  tasks: "tasks",
  /** Task directories being created, and removed ones on their way out. */
  staging: "tmp",
  /** Live wait edges between trees, for the cycle check. */
  waits: "waits",
  /** The tickets of background runs waiting their turn, in order (runQueue.ts). */
  queue: "queue",
  /** One lock file per running background run, up to maxRunning (runQueue.ts). */
  slots: "slots",
} as const;

/**
 * Entries of the staging directory that begin with this are removals on their way out: a task
 * removed, or an attach's workspace left to a background `rm` (host/removeLater.ts). Any that
 * is still there is finished by gc, whatever its age.
 */
export const REMOVAL_PREFIX = "rm.";

/** Random bytes in a removal's name (as hex), so that two removals of one label never meet. */
export const REMOVAL_NONCE_BYTES = 6;

/**
 * Where a removal of `label` goes: the staging directory of `dataDir`, under a name that begins
 * with REMOVAL_PREFIX, so gc finishes it if nothing else does. Pure.
 */
export function removalPath(dataDir: string, label: string, nonce: string): string {
  return join(dataDir, DATA_DIRS.staging, `${REMOVAL_PREFIX}${label}.${nonce}`);
}

/** Creates the data directory and its subdirectories, each 0700. */
export async function prepareDataDir(path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: 0o700 });
    for (const dir of Object.values(DATA_DIRS)) {
      await mkdir(join(path, dir), { recursive: true, mode: 0o700 });
    }
  } catch (error) {
    const why = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new DataDirError(`cannot use the data directory ${cleanLine(path)}: ${cleanLine(why)}`, {
      cause: error,
    });
  }
}
