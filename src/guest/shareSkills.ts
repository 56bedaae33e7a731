// The share's folder of skills: present exactly when the settings name skills, with a folder
// for each name. The host made it, but the runner checks what it will copy from.
import { lstat } from "node:fs/promises";
import { join } from "node:path";
import { BadShareError, cleanLine, SHARE_SKILLS_DIR, SKILL_FILE } from "../protocol/index.js";

/** The folder of skills in the share; undefined when the settings name none. */
export async function shareSkills(
  share: string,
  names: readonly string[] | undefined,
): Promise<string | undefined> {
  if (names === undefined) return undefined;
  const dir = join(share, SHARE_SKILLS_DIR);
  for (const name of names) {
    const file = await lstat(join(dir, name, SKILL_FILE)).catch(() => undefined);
    if (file === undefined || !file.isFile()) {
      throw new BadShareError(
        `the skill ${cleanLine(name)} the settings name has no ${SKILL_FILE} in the task share`,
        { hint: "the host must copy each of the task's skills into the share's skills folder" },
      );
    }
  }
  return dir;
}
