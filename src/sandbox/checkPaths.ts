// The host paths of a request must exist before a sandbox starts: said plainly here, rather
// than by bwrap or spawn in their own words.
import { stat } from "node:fs/promises";
import { BadSandboxRequestError } from "./errors.js";
import type { SandboxRequest } from "./sandboxRequest.js";

export async function checkPathsExist(request: SandboxRequest): Promise<void> {
  const dirs = [
    ["share", request.share],
    ["workspace", request.workspace],
  ] as const;
  for (const [what, path] of dirs) {
    const info = await stat(path).catch(() => null);
    if (info === null || !info.isDirectory()) {
      throw new BadSandboxRequestError(`the ${what} ${path} is not a directory`, {
        hint: `create the ${what} directory before starting the sandbox`,
      });
    }
  }
  for (const socket of request.sockets) {
    const info = await stat(socket.path).catch(() => null);
    if (info === null || !info.isSocket()) {
      throw new BadSandboxRequestError(
        `the ${socket.name} socket ${socket.path} is not a listening socket`,
        {
          hint: "start the host's side (proxy, relay) before the sandbox",
        },
      );
    }
  }
  for (const path of request.readOnlyBinds) {
    if ((await stat(path).catch(() => null)) === null) {
      throw new BadSandboxRequestError(
        `${path} does not exist, so it cannot be bound into the sandbox`,
        {
          hint: "check the agent's install",
        },
      );
    }
  }
}
