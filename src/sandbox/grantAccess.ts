// Hands a root warden's task files to the sandbox's dedicated uid, before the sandbox starts.
import { lstat, lchown, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { cleanLine } from "../protocol/index.js";
import { SandboxUnavailableError } from "./errors.js";
import type { BwrapGrant } from "./planBwrap.js";
import type { SandboxIdentity } from "./sandboxIdentity.js";

/** Sets the owner of `path` (and, for a tree, of everything under it) without following links. */
async function chownTree(
  path: string,
  identity: SandboxIdentity,
  recursive: boolean,
): Promise<void> {
  await lchown(path, identity.uid, identity.gid);
  if (!recursive || !(await lstat(path)).isDirectory()) return;
  for (const name of await readdir(path)) await chownTree(join(path, name), identity, true);
}

/** The mode bits another user needs: read, and for a directory, entry. */
function othersCanRead(mode: number, isDirectory: boolean): boolean {
  const needed = isDirectory ? 0o005 : 0o004;
  return (mode & needed) === needed;
}

/**
 * Gives the sandbox's uid the share, the workspace and the sockets, and makes sure it can read
 * every other source it is shown (the Node runtime, warden, the agent). The share stays
 * read-only inside whoever owns it; owning the socket is what lets the sandbox connect.
 */
export async function grantAccess(plan: {
  grants: readonly BwrapGrant[];
  readable: readonly string[];
  identity: SandboxIdentity;
}): Promise<void> {
  for (const grant of plan.grants) await chownTree(grant.path, plan.identity, grant.recursive);
  for (const path of plan.readable) {
    const info = await stat(path);
    if (!othersCanRead(info.mode, info.isDirectory())) {
      throw new SandboxUnavailableError(
        `the sandbox's uid ${plan.identity.uid} cannot read ${cleanLine(path)}, which the agent or the runner needs`,
        {
          hint: `make it readable by every user (\`chmod o+rX ${path}\`), or install it outside a private directory`,
        },
      );
    }
  }
}
