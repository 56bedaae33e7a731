// Where the agent runs: the workspace's top, or the directory below it that the settings name
// (`--repo` named a subdirectory of the repository). The whole repository is still checked out,
// and the changes are still the whole repository's.
import { realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { BadShareError, cleanLine } from "../protocol/index.js";

export async function agentDirectory(workspace: string, workdir?: string): Promise<string> {
  if (workdir === undefined) return workspace;
  const missing = new BadShareError(
    `the directory ${cleanLine(workdir)} the agent is to run in is not in the start commit`,
    { hint: "run it with --repo at a directory that the commit has, or at the repository's top" },
  );
  let real: string;
  try {
    real = await realpath(join(workspace, workdir));
  } catch {
    throw missing;
  }
  // A link committed in the directory's place may point anywhere: only a directory inside the
  // workspace is taken.
  const top = await realpath(workspace);
  if (!real.startsWith(top + sep) || !(await stat(real)).isDirectory()) throw missing;
  return real;
}
