// Shared by the store's tests: a fresh store in a temporary directory, and child processes
// running the fixtures in ./fixtures, spoken to in lines over stdin and stdout.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Tasks, type OpenOptions } from "../../src/store/index.js";

const FIXTURES = join(import.meta.dirname, "fixtures");

export interface TempStore {
  tasks: Tasks;
  dataDir: string;
  /** Another handle on the same data dir, as another process would open it. */
  open(options?: Omit<OpenOptions, "dataDir">): Promise<Tasks>;
  cleanup(): Promise<void>;
}

export async function tempStore(options: Omit<OpenOptions, "dataDir"> = {}): Promise<TempStore> {
  const dataDir = await mkdtemp(join(tmpdir(), "warden-store-"));
  const tasks = await Tasks.open({ dataDir, env: {}, ...options });
  return {
    tasks,
    dataDir,
    open: (more = {}) => Tasks.open({ dataDir, env: {}, ...more }),
    cleanup: () => rm(dataDir, { recursive: true, force: true }),
  };
}

/** A fixture running in its own node process, with its stdout as a queue of lines. */
export class Fixture {
  readonly child: ChildProcessWithoutNullStreams;
  readonly #lines: string[] = [];
  readonly #waiters: Array<() => void> = [];
  #stderr = "";
  #closed = false;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(name: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
    this.child = spawn(
      process.execPath,
      ["--import", "tsx", join(FIXTURES, `${name}.ts`), ...args],
      {
        env: { ...process.env, ...env },
        stdio: ["pipe", "pipe", "pipe"],
      },
    );
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      this.#lines.push(line);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.child.stderr.on("data", (chunk: Buffer) => {
      this.#stderr += chunk.toString();
    });
    this.exited = new Promise((resolve) => {
      // "close" comes after stdout has ended, so every line printed has been read by then.
      this.child.on("close", (code, signal) => {
        this.#closed = true;
        for (const wake of this.#waiters.splice(0)) wake();
        resolve({ code, signal });
      });
    });
  }

  get stderr(): string {
    return this.#stderr;
  }

  send(line: string): void {
    this.child.stdin.write(line + "\n");
  }

  /** The next line of output; fails if the process exits or `timeoutMs` passes first. */
  async line(timeoutMs = 30_000): Promise<string> {
    const giveUpAt = Date.now() + timeoutMs;
    for (;;) {
      const next = this.#lines.shift();
      if (next !== undefined) return next;
      if (this.#closed) {
        throw new Error(`fixture exited before a line; stderr:\n${this.#stderr}`);
      }
      const left = giveUpAt - Date.now();
      if (left <= 0) throw new Error(`no line within ${timeoutMs} ms; stderr:\n${this.#stderr}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The next line, parsed as JSON. */
  async json<T = Record<string, unknown>>(timeoutMs?: number): Promise<T> {
    return JSON.parse(await this.line(timeoutMs)) as T;
  }

  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    this.child.kill(signal);
  }
}

/** Runs a fixture to its end and returns every line it printed. */
export async function runFixture(
  name: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<string[]> {
  const fixture = new Fixture(name, args, env);
  const lines: string[] = [];
  const { code } = await fixture.exited;
  // Drain what was printed before the exit.
  for (;;) {
    try {
      lines.push(await fixture.line(1));
    } catch {
      break;
    }
  }
  if (code !== 0) throw new Error(`fixture ${name} exited ${code}; stderr:\n${fixture.stderr}`);
  return lines;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
