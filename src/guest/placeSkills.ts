// The task's skills, copied from the share to where the agent looks for them (its adapter says
// where, inside the task's home). The share is read-only and the copy is the agent's to change;
// the copy takes folders and regular files only, within the contract's bounds, so a share that
// is not what the host would write cannot make the runner copy without end or follow a link.
import { constants } from "node:fs";
import { copyFile, lstat, mkdir, readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { BadShareError, cleanLine, MCP_LIMITS } from "../protocol/index.js";
import { AgentStartError } from "./errors.js";

/** Copies the tree at `from` to `to` (replacing what a past run left there). */
export async function placeSkills(from: string, to: string, home: string): Promise<void> {
  if (!to.startsWith(`${home}/`)) {
    throw new AgentStartError(`the agent's skills folder ${to} is outside its home ${home}`);
  }
  await rm(to, { recursive: true, force: true });
  await mkdir(to, { recursive: true, mode: 0o700 });
  let entries = 0;
  let bytes = 0;
  const copy = async (relative: string, depth: number): Promise<void> => {
    for (const name of await readdir(join(from, relative))) {
      const path = join(relative, name);
      const info = await lstat(join(from, path));
      entries++;
      if (entries > MCP_LIMITS.skillsEntries || depth > MCP_LIMITS.skillsDepth) {
        throw new BadShareError("the task share's skills are over their bounds");
      }
      if (info.isDirectory()) {
        await mkdir(join(to, path), { mode: 0o700 });
        await copy(path, depth + 1);
      } else if (info.isFile()) {
        bytes += info.size;
        if (bytes > MCP_LIMITS.skillsBytes) {
          throw new BadShareError("the task share's skills are over their bounds");
        }
        await copyFile(join(from, path), join(to, path), constants.COPYFILE_EXCL);
      } else {
        throw new BadShareError(
          `${cleanLine(path)} among the task share's skills is not a file or folder`,
        );
      }
    }
  };
  await copy("", 1);
}
