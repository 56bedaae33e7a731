// Removing a directory without waiting for it. An attach's workspace holds the task's checkout,
// which on a monorepo is tens of thousands of files: deleting them one by one kept the command
// that ran the task from exiting for as long as the deletion took.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rename, rm } from "node:fs/promises";
import { removalPath, REMOVAL_NONCE_BYTES } from "../store/index.js";

/**
 * Moves `path` out of its place in one step (a rename into the data directory's staging
 * directory, as a removal gc finishes if nothing else does) and leaves its deletion to a
 * detached `rm` that outlives this process. Nothing is at `path` once it resolves. When it
 * cannot be moved (the staging directory is missing, or on another filesystem) or the remover
 * cannot start, it is deleted here instead. A link at `path` is moved or deleted as the link:
 * nothing it points at is touched.
 */
export async function removeLater(dataDir: string, path: string, label: string): Promise<void> {
  const removal = removalPath(dataDir, label, randomBytes(REMOVAL_NONCE_BYTES).toString("hex"));
  try {
    await rename(path, removal);
  } catch {
    await rm(path, { recursive: true, force: true });
    return;
  }
  if (!(await startRemover(removal))) await rm(removal, { recursive: true, force: true });
}

/**
 * Starts `rm -rf` of `removal` in a session of its own, tied to nothing of this process (no
 * pipes, not waited for), so this process can exit while it runs and a signal to its terminal
 * does not stop it. `--one-file-system` keeps it out of anything mounted inside. Resolves
 * whether it started.
 */
function startRemover(removal: string): Promise<boolean> {
  return new Promise((resolve) => {
    const remover = spawn("rm", ["-rf", "--one-file-system", "--", removal], {
      detached: true,
      stdio: "ignore",
    });
    remover.once("error", () => {
      resolve(false);
    });
    remover.once("spawn", () => {
      remover.unref();
      resolve(true);
    });
  });
}
