// The task's skills in its share: copied from the --skills directory each time the share is
// written, walked and checked again, since the directory is the user's and may have changed.
import { join } from "node:path";
import { SHARE_SKILLS_DIR } from "../protocol/index.js";
import type { HostSettings } from "./hostSettings.js";
import { copySkills } from "./skillsDir.js";

/** Copies the skills the task was made with into `share`/skills; nothing when it has none. */
export async function copyTaskSkills(host: HostSettings, share: string): Promise<void> {
  const names = host.guest.skills;
  if (host.skillsDir === undefined || names === undefined) return;
  await copySkills(host.skillsDir, names, join(share, SHARE_SKILLS_DIR));
}
