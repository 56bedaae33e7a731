// A suite of tests that run the built `warden` as a child process, as a script would: skipped
// when warden is not built, with a fresh workspace (a repository and a data directory) made
// before its first test and removed after its last.
import { existsSync } from "node:fs";
import { after, before, describe } from "node:test";
import { CLI_MAIN, workspace, type Workspace } from "../e2e/fixtures.js";
import { skipWhen } from "./skipWhen.js";

/** Why the built `warden` cannot run here, if it cannot. */
export const CLI_NOT_BUILT = skipWhen(
  existsSync(CLI_MAIN) ? false : "warden is not built: run `npm run build` first",
);

/** Registers the suite `name`, whose tests (registered by `body`) find their workspace in `ws`. */
export function describeCli(name: string, body: (ws: Workspace) => void): void {
  describe(name, { skip: CLI_NOT_BUILT }, () => {
    // Filled in by the suite's first hook, before any of its tests reads it.
    const ws = {} as Workspace;
    before(async () => {
      Object.assign(ws, await workspace());
    });
    after(async () => {
      await ws.cleanup();
    });
    body(ws);
  });
}
