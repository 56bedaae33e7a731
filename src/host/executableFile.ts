// Whether a path is a program this process could start.
import { accessSync, constants, statSync } from "node:fs";

/** True for a regular file (links followed) this process may execute. Reads the disk. */
export function isExecutableFile(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
