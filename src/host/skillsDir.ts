// A task's skills (--skills DIR): a directory of this machine with one folder per skill, each
// holding its SKILL.md. The host walks it into a plan (pure checks on what lstat saw: no link
// anywhere, only folders and regular files, bounded in bytes, entries and depth) and copies the
// plan into the task share, where the runner puts it where the agent looks. It is copied, never
// bound: a copy cannot change under the agent, and cannot lead it anywhere else on this machine.
import { constants, type Stats } from "node:fs";
import { lstat, mkdir, open, readdir, realpath, writeFile } from "node:fs/promises";
import { dirname, join, sep } from "node:path";
import { errorMessage } from "../lang/index.js";
import { cleanLine, MCP_LIMITS, SKILL_FILE, SKILL_NAME } from "../protocol/index.js";
import { NO_FOLLOW } from "../store/index.js";
import { BadSkillsError, SkillsLinkError } from "./mcpErrors.js";

/** What the walk found: the skills' names, and every folder and file below the directory. */
export interface SkillsPlan {
  /** The directory, as its real path. */
  readonly root: string;
  readonly names: readonly string[];
  /** Folders relative to the root, parents before children. */
  readonly dirs: readonly string[];
  readonly files: readonly {
    readonly path: string;
    readonly bytes: number;
    readonly executable: boolean;
  }[];
}

function shown(root: string, path: string): string {
  return cleanLine(path === "" ? root : join(root, path));
}

/** lstat that names the entry when it fails. */
async function look(root: string, path: string): Promise<Stats> {
  try {
    return await lstat(join(root, path));
  } catch (error) {
    throw new BadSkillsError(`cannot read ${shown(root, path)}: ${errorMessage(error)}`);
  }
}

/** Walks the directory into a plan, refusing anything the bounds or the rules do not allow. */
export async function planSkills(dir: string): Promise<SkillsPlan> {
  let root: string;
  try {
    root = await realpath(dir);
  } catch (error) {
    throw new BadSkillsError(
      `cannot read the skills directory ${cleanLine(dir)}: ${errorMessage(error)}`,
    );
  }
  if (!(await look(root, "")).isDirectory()) {
    throw new BadSkillsError(`the skills directory ${cleanLine(dir)} is not a directory`);
  }
  const names: string[] = [];
  const dirs: string[] = [];
  const files: { path: string; bytes: number; executable: boolean }[] = [];
  let bytes = 0;
  const count = (): void => {
    if (dirs.length + files.length > MCP_LIMITS.skillsEntries) {
      throw new BadSkillsError(
        `the skills directory ${cleanLine(dir)} holds more than ${MCP_LIMITS.skillsEntries} files and folders`,
      );
    }
  };
  const walk = async (relative: string, depth: number): Promise<void> => {
    if (depth > MCP_LIMITS.skillsDepth) {
      throw new BadSkillsError(
        `${shown(root, relative)} is more than ${MCP_LIMITS.skillsDepth} folders deep in the skills directory`,
      );
    }
    for (const name of (await readdir(join(root, relative))).sort()) {
      const path = join(relative, name);
      const info = await look(root, path);
      if (info.isSymbolicLink()) {
        throw new SkillsLinkError(`${shown(root, path)} in the skills directory is a link`);
      }
      if (info.isDirectory()) {
        dirs.push(path);
        count();
        await walk(path, depth + 1);
      } else if (info.isFile()) {
        bytes += info.size;
        if (bytes > MCP_LIMITS.skillsBytes) {
          throw new BadSkillsError(
            `the skills in ${cleanLine(dir)} are over the limit of ${MCP_LIMITS.skillsBytes} bytes`,
          );
        }
        files.push({ path, bytes: info.size, executable: (info.mode & 0o111) !== 0 });
        count();
      } else {
        throw new BadSkillsError(
          `${shown(root, path)} in the skills directory is not a file or folder`,
        );
      }
    }
  };
  for (const name of (await readdir(root)).sort()) {
    const info = await look(root, name);
    if (info.isSymbolicLink()) {
      throw new SkillsLinkError(`${shown(root, name)} in the skills directory is a link`);
    }
    // Files beside the skills (a README) are no skill: they are left where they are.
    if (!info.isDirectory()) continue;
    if (!SKILL_NAME.test(name)) {
      throw new BadSkillsError(
        `${shown(root, name)} is not a skill's name: letters, digits, . _ -`,
      );
    }
    const skill = await look(root, join(name, SKILL_FILE)).catch(() => undefined);
    if (skill === undefined || !skill.isFile()) {
      throw new BadSkillsError(`the skill ${shown(root, name)} has no ${SKILL_FILE}`);
    }
    names.push(name);
    if (names.length > MCP_LIMITS.skills) {
      throw new BadSkillsError(
        `the skills directory ${cleanLine(dir)} has more than ${MCP_LIMITS.skills} skills`,
      );
    }
    dirs.push(name);
    count();
    await walk(name, 2);
  }
  if (names.length === 0) {
    throw new BadSkillsError(`the skills directory ${cleanLine(dir)} has no skill in it`);
  }
  return { root, names, dirs, files };
}

/**
 * Copies the skills `names` (the ones the task was made with) from `dir` into `dest`, walking
 * the directory again: it may have changed since. Each file is opened without following a link
 * and must still be the regular file of the size the walk saw.
 */
export async function copySkills(
  dir: string,
  names: readonly string[],
  dest: string,
): Promise<void> {
  const plan = await planSkills(dir);
  const missing = names.filter((name) => !plan.names.includes(name));
  if (missing.length > 0) {
    throw new BadSkillsError(
      `the skill ${cleanLine(missing[0] ?? "")} the task was made with is no longer in ${cleanLine(dir)}`,
    );
  }
  const wanted = (path: string): boolean => names.includes(path.split(sep)[0] ?? "");
  await mkdir(dest, { mode: 0o700 });
  for (const path of plan.dirs.filter(wanted)) await mkdir(join(dest, path), { mode: 0o700 });
  for (const file of plan.files.filter((file) => wanted(file.path))) {
    // A folder swapped for a link since the walk would lead the open elsewhere: its real path
    // must still be where the walk found it.
    const parent = dirname(join(plan.root, file.path));
    if ((await realpath(parent)) !== parent) {
      throw new SkillsLinkError(`${cleanLine(parent)} in the skills directory became a link`);
    }
    const handle = await open(join(plan.root, file.path), constants.O_RDONLY | NO_FOLLOW);
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size !== file.bytes) {
        throw new BadSkillsError(`${shown(plan.root, file.path)} changed while it was copied`);
      }
      const bytes = Buffer.alloc(file.bytes);
      const { bytesRead } = await handle.read(bytes, 0, file.bytes, 0);
      if (bytesRead !== file.bytes) {
        throw new BadSkillsError(`${shown(plan.root, file.path)} changed while it was copied`);
      }
      await writeFile(join(dest, file.path), bytes, {
        mode: file.executable ? 0o700 : 0o600,
        flag: "wx",
      });
    } finally {
      await handle.close();
    }
  }
}
