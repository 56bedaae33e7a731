// A task's life when someone intervenes: a cancel ends its sandbox within the grace; a SIGKILL of
// the `warden run` process leaves no sandbox process behind and the task interrupted, and
// `warden start` runs it again to the end; and `logs --follow` follows a running task to its end.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { HOST_LIMITS } from "../../src/host/index.js";
import {
  collect,
  descendants,
  NO_SYSTEM,
  runCli,
  startCli,
  stillRunning,
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

async function gone(list: { pid: number; start: string }[], withinMs: number): Promise<number[]> {
  const giveUpAt = Date.now() + withinMs;
  let alive = await stillRunning(list);
  while (alive.length > 0 && Date.now() < giveUpAt) {
    await sleep(20);
    alive = await stillRunning(list);
  }
  return alive;
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

  test("cancel of a running task ends its sandbox within the grace and records cancelled", async () => {
    const dataDir = join(ws.root, "cancel");
    const child = runShellTask(dataDir, "wait", "touch started; sleep 60");
    const running = collect(child);
    const id = await startedTask(dataDir);
    const sandbox = await descendants(child.pid ?? 0);
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

  test("SIGKILL of warden run leaves no sandbox process and the task interrupted; start runs it again", async () => {
    const dataDir = join(ws.root, "kill");
    const child = runShellTask(
      dataDir,
      "write done.txt",
      "touch started; sleep 2; echo done > done.txt",
    );
    const exited = collect(child);
    const id = await startedTask(dataDir);
    const sandbox = await descendants(child.pid ?? 0);
    assert.ok(sandbox.length > 0);
    child.kill("SIGKILL");
    const killed = await exited;
    assert.equal(killed.signal, "SIGKILL");
    assert.deepEqual(await gone(sandbox, 5000), [], "every sandbox process died with warden");
    const show = await runCli(dataDir, ["show", id, "--json"]);
    assert.equal((JSON.parse(show.stdout) as { state: string }).state, "interrupted");

    const start = await runCli(dataDir, ["start", id.slice(0, 8), "--json"]);
    assert.equal(start.code, 0, start.stderr);
    const view = JSON.parse(start.stdout) as { state: string; attempts: number; changes: boolean };
    assert.equal(view.state, "succeeded");
    assert.equal(view.attempts, 2);
    assert.equal(view.changes, true);
  });

  test("logs --follow prints the guest log as it grows and ends once the task has finished", async () => {
    const dataDir = join(ws.root, "follow");
    const child = runShellTask(dataDir, "wait", "touch started; sleep 2");
    const running = collect(child);
    const id = await startedTask(dataDir);
    const following = collect(startCli(dataDir, ["logs", id, "--follow"]));
    const followed = await following;
    const run = await running;
    assert.equal(run.code, 0, run.stderr);
    assert.equal(followed.code, 0, followed.stderr);
    // It began before the end, and printed the whole log to the runner's last line.
    assert.match(followed.stdout, /starting the command agent/);
    assert.match(followed.stdout, /done in [\d.]+ s, exit 0/);
    const plain = await runCli(dataDir, ["logs", id]);
    assert.equal(followed.stdout, plain.stdout, "following printed the same log, once");
  });
});
