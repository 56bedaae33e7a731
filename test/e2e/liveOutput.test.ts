// A command agent's output as a person follows it: `watch` and `logs --follow` show each line
// while the agent still runs, cleaned; a flood is bounded and accounted for; `--tail` starts at
// the end. Real tasks in real bubblewrap sandboxes, run by the built CLI.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { type ChildProcess } from "node:child_process";
import { after, before, describe, test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import {
  AWAIT_RELEASE,
  NO_SYSTEM,
  collect,
  runArgs,
  runCli,
  startCli,
  taskWorkspace,
  workspace,
  type Workspace,
} from "./fixtures.js";

/** How long a test waits for a line it expects while the agent runs. */
const LINE_WAIT_MS = 30_000;

/** A child's stdout as it comes, for waiting on what it has printed so far. */
class Printed {
  text = "";
  readonly #waiters = new Set<() => void>();

  constructor(child: ChildProcess) {
    child.stdout?.on("data", (chunk: Buffer) => {
      this.text += chunk.toString("utf8");
      for (const wake of this.#waiters) wake();
    });
  }

  /** Resolves once the output matches `pattern`; rejects when that takes too long. */
  seen(pattern: RegExp): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (!pattern.test(this.text)) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`no ${String(pattern)} within ${LINE_WAIT_MS} ms in: ${this.text}`));
      }, LINE_WAIT_MS);
      this.#waiters.add(check);
      check();
    });
  }
}

async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < LINE_WAIT_MS / 50; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error("gave up waiting");
}

describe("a command agent's live output", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;
  before(async () => {
    ws = await workspace();
  });
  after(async () => {
    await ws.cleanup();
  });

  test("watch and logs --follow show each line while the agent still runs, cleaned", async () => {
    const dataDir = join(ws.root, "live");
    const script =
      "echo 'hello from the agent'; " +
      "printf '\\033]0;pwned\\007\\033[31mred\\033[0m\\n' >&2; " +
      `${AWAIT_RELEASE}; echo bye`;
    const run = startCli(dataDir, runArgs(ws.repo, "talk", [], ["sh", "-c", script]));
    const ran = collect(run);
    const tasksDir = join(dataDir, "tasks");
    await until(async () => existsSync(tasksDir) && (await readdir(tasksDir)).length === 1);
    const [id = ""] = await readdir(tasksDir);
    const release = join(taskWorkspace(dataDir, id), "release");
    await until(() => existsSync(join(taskWorkspace(dataDir, id), "started")));

    const watch = startCli(dataDir, ["watch", id]);
    const logs = startCli(dataDir, ["logs", "-f", id]);
    const [watching, following] = [new Printed(watch), new Printed(logs)];
    const [watched, logged] = [collect(watch), collect(logs)];
    await Promise.all([
      watching.seen(/ stdout: hello from the agent$/m),
      watching.seen(/ stderr: /m),
      following.seen(/ stdout\[\w+\]: hello from the agent$/m),
      following.seen(/ stderr\[\w+\]: /m),
    ]);
    // Both showed the lines while the agent still waited for its release.
    assert.equal(existsSync(release), false);
    const tasks = await Tasks.open({ dataDir, env: {} });
    assert.equal((await tasks.get(id)).state, "running");
    // The guest log now ends with the agent's lines: --tail begins there, not at its start.
    const tail = startCli(dataDir, ["logs", "--follow", "--tail", "1", id]);
    const tailing = new Printed(tail);
    const tailed = collect(tail);
    await tailing.seen(/\n/);

    writeFileSync(release, "");
    const [end, w, l, t] = await Promise.all([ran, watched, logged, tailed]);
    assert.equal(end.code, 0, end.stderr);
    assert.equal(w.code, 0, w.stderr);
    assert.equal(l.code, 0, l.stderr);
    assert.equal(t.code, 0, t.stderr);
    assert.match(w.stdout, / stderr: \?\]0;pwned\?\?\[31mred\?\[0m$/m);
    assert.match(l.stdout, /stderr\[\w+\]: \?\]0;pwned\?\?\[31mred\?\[0m$/m);
    for (const out of [w.stdout, l.stdout, t.stdout]) {
      // eslint-disable-next-line no-control-regex -- matching control characters is the point.
      assert.doesNotMatch(out, /[\x00-\x09\x0b-\x1f]/);
    }
    assert.ok(w.stdout.indexOf("stdout: hello") < w.stdout.indexOf("stdout: bye"));
    assert.match(w.stdout, /finished: state=succeeded/);
    assert.doesNotMatch(t.stdout, /preparing the share/, "--tail began at the end");
    assert.match(t.stdout, /^[^\n]*std(out|err)\[\w+\]: [^\n]*\n/, "its first line was the last");
    assert.match(t.stdout, /stdout\[\w+\]: bye$/m, "then it followed");
  });

  test("a flood of output is bounded, and every line is shown or counted", async () => {
    const dataDir = join(ws.root, "flood");
    const script = "seq 1 100000; seq 1 50000 >&2";
    const run = await runCli(dataDir, runArgs(ws.repo, "flood", [], ["sh", "-c", script]));
    assert.equal(run.code, 0, run.stderr);
    const [id = ""] = await readdir(join(dataDir, "tasks"));
    const watch = await runCli(dataDir, ["watch", id, "--json", "--no-follow"]);
    const events = watch.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; text?: string; skipped?: number });
    const output = events.filter((e) => e.type === "output");
    const shown = output.filter((e) => e.text !== "").length;
    const skipped = output.reduce((sum, e) => sum + (e.skipped ?? 0), 0);
    assert.equal(shown + skipped, 150_000);
    assert.ok(shown < 2_000, `${shown} lines were shown`);
    // The transcript still has every line, and --tail gives its last ones.
    const last = await runCli(dataDir, ["logs", id, "--transcript", "--tail", "3"]);
    assert.equal(last.stdout, "99998\n99999\n100000\n");
    const none = await runCli(dataDir, ["logs", id, "--agent-log", "-n", "0"]);
    assert.equal(none.stdout, "");
    const lastEvents = await runCli(dataDir, ["watch", id, "--tail", "2", "--no-follow"]);
    const lines = lastEvents.stdout.trim().split("\n");
    assert.equal(lines.length, 2);
    assert.match(lines[1] ?? "", /finished: state=succeeded/);
  });
});
