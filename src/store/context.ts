// What every verb of one open store shares. Owned by a Tasks instance, never module state, so
// one process can open several stores.
import { join } from "node:path";
import type { LockPurpose } from "./lockHolder.js";
import type { StoreHooks } from "./atomicFile.js";
import { DATA_DIRS } from "./dataDir.js";
import { TaskPaths } from "./taskDir.js";
import type { IdGenerator } from "./taskId.js";

export type Env = Readonly<Record<string, string | undefined>>;

export class StoreContext {
  readonly tasksDir: string;
  readonly stagingDir: string;

  constructor(
    readonly dataDir: string,
    readonly env: Env,
    readonly hooks: StoreHooks,
    readonly ids: IdGenerator,
    readonly host: string,
    readonly now: () => number,
  ) {
    this.tasksDir = join(dataDir, DATA_DIRS.tasks);
    this.stagingDir = join(dataDir, DATA_DIRS.staging);
  }

  /** The holder record an attach.lock taken now for `purpose` carries. */
  holder(purpose: LockPurpose): { host: string; purpose: LockPurpose; now: number } {
    return { host: this.host, purpose, now: this.now() };
  }

  paths(id: string): TaskPaths {
    return new TaskPaths(this.dataDir, id);
  }
}
