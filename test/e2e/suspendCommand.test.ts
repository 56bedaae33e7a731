// Suspending a task whose agent is a command, which has no turn boundaries: `warden suspend`
// says it stops at once, and it does (the command, which would wait for its release for a
// minute, is stopped and the task reads `suspended`); `warden resume` runs it again to its end.
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import {
  AWAIT_RELEASE,
  collect,
  idOf,
  NO_SYSTEM,
  runCli,
  startCli,
  taskWorkspace,
  until,
  workspace,
  type Workspace,
} from "./fixtures.js";

describe("suspending a command agent's task", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;
  before(async () => {
    ws = await workspace();
  });
  after(async () => {
    await ws.cleanup();
  });

  test("suspend says it stops at once, since a command has no turn boundaries, and it does; resume runs it to its end", async () => {
    const { dataDir } = ws;
    const created = await runCli(dataDir, [
      "run",
      "--repo",
      ws.repo,
      "--prompt",
      "wait for release",
      "--detach",
      "--",
      "sh",
      "-c",
      AWAIT_RELEASE,
    ]);
    assert.equal(created.code, 0, created.stderr);
    const id = idOf(created);
    const tasks = await Tasks.open({ dataDir, env: {} });
    const started = join(taskWorkspace(dataDir, id), "started");
    await until(() => Promise.resolve(existsSync(started)), 60_000);

    const asked = await runCli(dataDir, ["suspend", id]);
    assert.equal(asked.code, 0, asked.stderr);
    assert.equal(
      asked.stdout.trim(),
      `${id} suspending at once (its agent, a command, has no turn boundaries)`,
    );
    // The command waits a minute for its release; only a stop at once suspends it before then.
    await until(async () => (await tasks.get(id)).state === "suspended", 60_000);
    const again = await runCli(dataDir, ["suspend", id]);
    assert.equal(again.code, 1, "a suspended task has no run to suspend");
    assert.match(again.stderr, /is suspended, so there is no run to suspend/);

    const resumed = startCli(dataDir, ["resume", id, "--json"]);
    const ended = collect(resumed);
    await until(async () => {
      const { state } = await tasks.get(id);
      return state === "running" && existsSync(started);
    }, 60_000);
    writeFileSync(join(taskWorkspace(dataDir, id), "release"), "");
    const run = await ended;
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { state: string }).state, "succeeded");
  });

  test("suspend --json says when it takes effect: a command's at once", async () => {
    const dataDir = join(ws.root, "json");
    const child = startCli(dataDir, [
      "run",
      "--repo",
      ws.repo,
      "--prompt",
      "wait",
      "--json",
      "--",
      "sh",
      "-c",
      "touch started; sleep 120",
    ]);
    const running = collect(child);
    const tasks = await Tasks.open({ dataDir, env: {} });
    let id = "";
    await until(async () => {
      id = (await tasks.list({ states: ["running"] }))[0]?.id ?? "";
      return id !== "" && existsSync(join(taskWorkspace(dataDir, id), "started"));
    }, 60_000);
    const asked = await runCli(dataDir, ["suspend", id, "--json"]);
    assert.equal(asked.code, 0, asked.stderr);
    const outcome = JSON.parse(asked.stdout) as { when: string; requested: boolean };
    assert.equal(outcome.when, "at_once");
    assert.equal(outcome.requested, true);
    const run = await running;
    assert.equal((JSON.parse(run.stdout) as { state: string }).state, "suspended");
  });
});
