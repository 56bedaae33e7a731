// The task share: task.json, prompt.md, and history.json (or input.bundle), made by the host for
// the sandbox to read.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  checkSettings,
  formatHistoryInput,
  SHARE_FILES,
  type Settings,
} from "../protocol/index.js";
import { isRealDir } from "../store/index.js";
import { bundleBase } from "./bundleBase.js";

export interface ShareInput {
  settings: Settings;
  prompt: string;
  /** The repository's git directory (absolute). */
  gitDir: string;
  base: string;
  objectFormat: "sha1" | "sha256";
  /**
   * The history repository that holds the base (see historyCache/), which the sandbox gets
   * read-only: the share names it in history.json. Without it, the share holds a bundle of the
   * base's whole history instead.
   */
  history?: string;
}

/**
 * Writes the share into `dir` (created 0700). Where no history repository is given, the bundle of the base commit is made in a scratch
 * bare repository that borrows the user's objects through `objects/info/alternates`, so no ref is
 * ever added to, and no file written into, the user's repository.
 */
export async function writeShare(dir: string, input: ShareInput): Promise<void> {
  const settings = checkSettings(input.settings);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // mkdir takes a link to a directory for one: refuse it (PLANTED_LINK). The files are created
  // exclusively, so a file or a link already in their place is refused, never written through.
  isRealDir(dir);
  await writeFile(join(dir, SHARE_FILES.settings), JSON.stringify(settings, null, 2) + "\n", {
    mode: 0o600,
    flag: "wx",
  });
  await writeFile(join(dir, SHARE_FILES.prompt), input.prompt, { mode: 0o600, flag: "wx" });
  if (input.history !== undefined) {
    const history = formatHistoryInput({ base: input.base, repository: input.history });
    await writeFile(join(dir, SHARE_FILES.history), history, { mode: 0o600, flag: "wx" });
    return;
  }
  await bundleBase(dir, input, join(dir, SHARE_FILES.input));
}
