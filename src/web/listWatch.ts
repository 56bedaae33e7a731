// Tells the server when the task list may have changed, from the file system's own notices
// (inotify), never by polling: the tasks directory for tasks made and removed, and the directory
// of each unfinished task for its events, approvals, cancel and end. A finished task changes no
// more, so thousands of them cost no watches. Notices in a burst are told once, with every task
// they were about.
import { existsSync, readdirSync, watch, type FSWatcher } from "node:fs";
import { dirname } from "node:path";
import { TaskPaths } from "../store/index.js";
import { WEB_LIMITS } from "./limits.js";

/** A task directory's name: the store's ids are lowercase letters and digits. */
const TASK_NAME = /^[0-9a-z]{1,64}$/;

export class ListWatch {
  readonly #dataDir: string;
  readonly #tasksDir: string;
  readonly #onChange: (changed: ReadonlySet<string>) => void;
  /** The tasks whose directories changed since the last telling. */
  #changed = new Set<string>();
  readonly #top: FSWatcher;
  readonly #tasks = new Map<string, FSWatcher>();
  #timer: NodeJS.Timeout | undefined;
  /** Every task seen in the directory; those there at the start are not told as changed. */
  readonly #known = new Set<string>();
  #started = false;
  #closed = false;

  constructor(dataDir: string, onChange: (changed: ReadonlySet<string>) => void) {
    this.#dataDir = dataDir;
    // The store's directory of task directories, as its own paths name it.
    this.#tasksDir = dirname(new TaskPaths(dataDir, "0").dir);
    this.#onChange = onChange;
    this.#top = watch(this.#tasksDir, { persistent: false }, () => {
      this.#rescan();
      this.#tell();
    });
    this.#top.on("error", () => {
      this.close();
    });
    this.#rescan();
    this.#started = true;
  }

  /** Watches every unfinished task not yet watched, and drops the watches of finished ones. */
  #rescan(): void {
    if (this.#closed) return;
    let names: string[];
    try {
      names = readdirSync(this.#tasksDir);
    } catch {
      return;
    }
    const present = new Set(names.filter((name) => TASK_NAME.test(name)));
    for (const [name, watcher] of this.#tasks) {
      if (!present.has(name)) {
        watcher.close();
        this.#tasks.delete(name);
      }
    }
    for (const name of this.#known) if (!present.has(name)) this.#known.delete(name);
    for (const name of present) {
      // A task seen before is watched or finished: only a new one needs a look.
      if (this.#known.has(name)) continue;
      this.#known.add(name);
      // A new task is told, even one that finished before it could be watched.
      if (this.#started) this.#changed.add(name);
      const paths = new TaskPaths(this.#dataDir, name);
      if (existsSync(paths.terminal)) continue;
      try {
        const watcher = watch(paths.dir, { persistent: false }, () => {
          if (existsSync(paths.terminal)) {
            watcher.close();
            this.#tasks.delete(name);
          }
          this.#changed.add(name);
          this.#tell();
        });
        watcher.on("error", () => {
          watcher.close();
          this.#tasks.delete(name);
        });
        this.#tasks.set(name, watcher);
      } catch {
        // The task went away between the listing and the watch.
      }
    }
  }

  #tell(): void {
    if (this.#closed || this.#timer !== undefined) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      const changed = this.#changed;
      this.#changed = new Set();
      if (!this.#closed) this.#onChange(changed);
    }, WEB_LIMITS.listSettleMs);
  }

  /** How many tasks are watched: the unfinished ones. */
  get watched(): number {
    return this.#tasks.size;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#top.close();
    for (const watcher of this.#tasks.values()) watcher.close();
    this.#tasks.clear();
  }
}
