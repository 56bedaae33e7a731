// A task's life when someone intervenes: a cancel ends its sandbox within the grace; a SIGKILL of
// the `warden run` process leaves no sandbox process behind and the task interrupted, and
// `warden start` runs it again to the end; and `logs --follow` follows a running task to its end.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test, type TestContext } from "node:test";
import { HOST_LIMITS } from "../../src/host/limits.js";
import {
  AWAIT_RELEASE,
  collect,
  descendants,
  idOf,
  NO_SYSTEM,
  RELEASE_WAIT_SECONDS,
  runCli,
  startCli,
  stillRunning,
  taskWorkspace,
  workspace,
  type Workspace,
} from "./fixtures.js";

/** The one task of a fresh data directory, once its agent has touched `started`. */
async function startedTask(dataDir: string): Promise<string> {
  const giveUpAt = Date.now() + 30_000;
  while (Date.now() < giveUpAt) {
    const tasks = join(dataDir, "tasks");
    const id = existsSync(tasks) ? readdirSync(tasks)[0] : undefined;
    if (id !== undefined && existsSync(join(tasks, id, "workspace", "started"))) return id;
    await sleep(20);
  }
  throw new Error("the agent never started");
}

/**
 * What `child` has printed on stdout once it matches `pattern`; fails if the child ends first
 * or nothing matches within RELEASE_WAIT_SECONDS.
 */
function printed(child: ChildProcess, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = "";
    const timer = setTimeout(() => {
      finish(new Error(`nothing matched ${String(pattern)} in: ${text}`));
    }, RELEASE_WAIT_SECONDS * 1000);
    const onData = (chunk: Buffer): void => {
      text += chunk.toString("utf8");
      if (pattern.test(text)) finish();
    };
    const onClose = (): void => {
      finish(new Error(`it ended before printing ${String(pattern)}: ${text}`));
    };
    function finish(error?: Error): void {
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      child.off("close", onClose);
      if (error === undefined) resolve(text);
      else reject(error);
    }
    child.stdout?.on("data", onData);
    child.on("close", onClose);
  });
}

async function gone(list: { pid: number; start: string }[], withinMs: number): Promise<number[]> {
  const giveUpAt = Date.now() + withinMs;
  let alive = await stillRunning(list);
  while (alive.length > 0 && Date.now() < giveUpAt) {
    await sleep(20);
    alive = await stillRunning(list);
  }
  return alive;
}

/**
 * Kills, when the test ends, `warden run` and what of its sandbox still runs: a test that failed
 * before its task ended must not leave a sandbox running, nor hold the file open until it ends.
 */
function killAtEnd(
  t: TestContext,
  child: ChildProcess,
  sandbox: { pid: number; start: string }[],
): void {
  t.after(async () => {
    child.kill("SIGKILL");
    for (const pid of await stillRunning(sandbox)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // It ended between the look and the kill.
      }
    }
  });
}

describe("cancel, kill and start again", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;

  /** `warden run` of a shell command as the agent, on the workspace's repository. */
  function runShellTask(dataDir: string, prompt: string, script: string): ChildProcess {
    return startCli(dataDir, [
      "run",
      "--repo",
      ws.repo,
      "--prompt",
      prompt,
      "--",
      "sh",
      "-c",
      script,
    ]);
  }

  before(async () => {
    ws = await workspace();
  });
  after(async () => {
    await ws.cleanup();
  });

  test("cancel of a running task ends its sandbox within the grace and records cancelled", async (t) => {
    const dataDir = join(ws.root, "cancel");
    const child = runShellTask(dataDir, "wait", "touch started; sleep 60");
    const running = collect(child);
    const id = await startedTask(dataDir);
    const sandbox = await descendants(child.pid ?? 0);
    killAtEnd(t, child, sandbox);
    assert.ok(sandbox.length > 0, "the sandbox's processes are children of warden run");
    const asked = Date.now();
    const cancel = await runCli(dataDir, ["cancel", id.slice(0, 6)]);
    assert.equal(cancel.code, 0, cancel.stderr);
    assert.match(cancel.stdout, /cancelling/);
    const run = await running;
    const took = Date.now() - asked;
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, new RegExp(`^${id} cancelled`));
    assert.ok(took < HOST_LIMITS.stopGraceMs, `the task ended ${took} ms after the cancel`);
    assert.deepEqual(await stillRunning(sandbox), [], "nothing of the sandbox outlives the task");
    const wait = await runCli(dataDir, ["wait", id, "--json"]);
    assert.equal(wait.code, 1);
    assert.equal((JSON.parse(wait.stdout) as { state: string }).state, "cancelled");
  });

  test("SIGKILL of warden run leaves no sandbox process and the task interrupted; start runs it again", async (t) => {
    const dataDir = join(ws.root, "kill");
    const child = runShellTask(dataDir, "write done.txt", `${AWAIT_RELEASE}; echo done > done.txt`);
    const exited = collect(child);
    const id = await startedTask(dataDir);
    const sandbox = await descendants(child.pid ?? 0);
    killAtEnd(t, child, sandbox);
    assert.ok(sandbox.length > 0);
    child.kill("SIGKILL");
    const killed = await exited;
    assert.equal(killed.signal, "SIGKILL");
    assert.deepEqual(await gone(sandbox, 5000), [], "every sandbox process died with warden");
    const show = await runCli(dataDir, ["show", id, "--json"]);
    assert.equal((JSON.parse(show.stdout) as { state: string }).state, "interrupted");

    // The first attempt's agent waited for a release that never came, so only dying with warden
    // could have ended it. The second attempt gets a fresh workspace; once its agent has started
    // there, the test releases it.
    rmSync(join(taskWorkspace(dataDir, id), "started"), { force: true });
    const again = startCli(dataDir, ["start", id.slice(0, 8), "--json"]);
    const restarted = collect(again);
    killAtEnd(t, again, []);
    await startedTask(dataDir);
    writeFileSync(join(taskWorkspace(dataDir, id), "release"), "");
    const start = await restarted;
    assert.equal(start.code, 0, start.stderr);
    const view = JSON.parse(start.stdout) as { state: string; attempts: number; changes: boolean };
    assert.equal(view.state, "succeeded");
    assert.equal(view.attempts, 2);
    assert.equal(view.changes, true);
  });

  test("logs --follow prints the guest log as it grows and ends once the task has finished", async (t) => {
    // Follow starts before the task, when there is no guest log yet. The agent waits for a file
    // the test makes only once follow has printed the runner's line that starts the agent, so a
    // follow that printed nothing until the end would never show it.
    const dataDir = join(ws.root, "follow");
    const created = await runCli(dataDir, [
      "create",
      "--repo",
      ws.repo,
      "--prompt",
      "wait",
      "--",
      "sh",
      "-c",
      AWAIT_RELEASE,
    ]);
    const id = idOf(created);
    const follower = startCli(dataDir, ["logs", id, "--follow"]);
    const following = collect(follower);
    const starter = startCli(dataDir, ["start", id]);
    const running = collect(starter);
    // A failed test must not leave them running: the sandbox dies with `warden start`.
    t.after(() => {
      starter.kill("SIGKILL");
      follower.kill("SIGKILL");
    });
    const early = await printed(follower, /starting the command agent\n/);
    assert.doesNotMatch(
      early,
      /done in/,
      "the runner had not finished when its first lines showed",
    );
    const shown = await runCli(dataDir, ["show", id, "--json"]);
    assert.equal((JSON.parse(shown.stdout) as { state: string }).state, "running");
    writeFileSync(join(taskWorkspace(dataDir, id), "release"), "");
    const followed = await following;
    const run = await running;
    assert.equal(run.code, 0, run.stderr);
    assert.equal(followed.code, 0, followed.stderr);
    // It printed the whole log to the runner's last line.
    assert.ok(followed.stdout.startsWith(early));
    assert.match(followed.stdout, /done in [\d.]+ s, exit 0/);
    const plain = await runCli(dataDir, ["logs", id]);
    assert.equal(followed.stdout, plain.stdout, "following printed the same log, once");
  });
});
