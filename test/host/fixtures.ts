// What the host's tests share: a temporary directory with a repository and a store.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GUEST_MAIN } from "../../src/host/index.js";
import { Tasks } from "../../src/store/index.js";
import { makeRepo } from "../support/share.js";
import { skipWhen, type SkipReason } from "../support/skipWhen.js";

export { git, gitWithInput, makeRepo, TEST_GIT_ENV } from "../support/share.js";

/** Why a test that needs a real sandbox cannot run here, or undefined when it can. */
export const NO_SANDBOX: SkipReason | undefined =
  skipWhen(
    !existsSync(GUEST_MAIN)
      ? "the runner is not built: run `npm run build` first"
      : ["/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap"].some((p) => existsSync(p))
        ? undefined
        : "bubblewrap is not installed: apt-get install bubblewrap",
  ) || undefined;

export interface HostFixture {
  root: string;
  repo: string;
  head: string;
  tasks: Tasks;
  cleanup(): Promise<void>;
}

export async function hostFixture(): Promise<HostFixture> {
  const root = await mkdtemp(join(tmpdir(), "warden-host-"));
  const { repo, head } = await makeRepo(join(root, "repo"));
  const tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
  return {
    root,
    repo,
    head,
    tasks,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
}
