// The machine's queue of background runs: with maxRunning 1, detached tasks run one at a time
// in the order they were detached, the others read `queued`; a queued task can be cancelled,
// and a waiter killed with SIGKILL holds no place and no slot.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { before, test } from "node:test";
import { describeCli } from "../support/cliSuite.js";
import {
  AWAIT_RELEASE,
  cleanEnv,
  idOf,
  runArgs,
  runCli,
  startCli,
  collect,
  taskWorkspace,
  type CliResult,
} from "../e2e/fixtures.js";

/** Polls `check` until it holds; fails with `what` after a minute. */
async function until(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const giveUpAt = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > giveUpAt) assert.fail(what);
    await sleep(50);
  }
}

/** The pid of the background `warden start` that waits its turn for task `id`. */
async function waiterPid(id: string): Promise<number | undefined> {
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = (await readFile(`/proc/${entry}/cmdline`, "utf8").catch(() => "")).split("\0");
    if (argv.includes("--wait-turn") && argv.includes(id)) return Number(entry);
  }
  return undefined;
}

describeCli("the queue of background runs", (ws) => {
  let env: Record<string, string>;
  const cli = (args: string[]): Promise<CliResult> => runCli(ws.dataDir, args, { env });
  const started = (id: string): boolean =>
    existsSync(join(taskWorkspace(ws.dataDir, id), "started"));
  const release = (id: string): Promise<void> =>
    writeFile(join(taskWorkspace(ws.dataDir, id), "release"), "");
  async function stateOf(id: string): Promise<string> {
    const shown = await cli(["show", "--json", id]);
    assert.equal(shown.code, 0, shown.stderr);
    return (JSON.parse(shown.stdout) as { state: string }).state;
  }
  async function detach(title: string, short = false): Promise<string> {
    const flag = short ? "-d" : "--detach";
    const run = await cli(
      runArgs(ws.repo, title, [flag, "--sandbox", "none"], ["sh", "-c", AWAIT_RELEASE]),
    );
    assert.equal(run.code, 0, run.stderr);
    return idOf(run);
  }

  before(async () => {
    const configHome = join(ws.root, "config-home");
    await mkdir(join(configHome, "warden"), { recursive: true });
    await writeFile(join(configHome, "warden", "config.yaml"), "maxRunning: 1\n");
    // The none sandbox's directory is under TMPDIR, and a holder killed below leaves it there.
    const tmp = join(ws.root, "tmp");
    await mkdir(tmp);
    env = cleanEnv({ XDG_CONFIG_HOME: configHome, TMPDIR: tmp });
  });

  test("with maxRunning 1, detached tasks wait their turn in order; cancel and kill -9 leave the queue", async () => {
    const first = await detach("first", true);
    await until(() => started(first), "the first task never started");
    const second = await detach("second");
    const third = await detach("third");
    const fourth = await detach("fourth");
    for (const id of [second, third, fourth]) assert.equal(await stateOf(id), "queued");
    const listed = await cli(["ls", "--state", "queued", "-q"]);
    assert.deepEqual(listed.stdout.trim().split("\n").sort(), [second, third, fourth].sort());

    // The second's waiter dies: its place goes with it, and its task is as it was made.
    const killed = await waiterPid(second);
    assert.ok(killed !== undefined, "no waiter for the second task");
    process.kill(killed, "SIGKILL");
    await until(
      async () => (await stateOf(second)) === "created",
      "the killed waiter's task stays queued",
    );

    // The fourth is cancelled while it waits: it ends at once, and never runs.
    const cancel = await cli(["cancel", fourth]);
    assert.equal(cancel.code, 0, cancel.stderr);
    assert.equal(await stateOf(fourth), "cancelled");

    // Nothing else starts while the first runs.
    await sleep(1000);
    assert.equal(started(third), false, "the third started while the first ran");
    assert.equal(await stateOf(third), "queued");

    // A watch of a queued task says why it is quiet, then follows the run once it starts.
    const watcher = startCli(ws.dataDir, ["watch", third], { env });
    let watcherSaid = "";
    watcher.stderr?.on("data", (chunk: Buffer) => (watcherSaid += chunk.toString()));
    const watching = collect(watcher);
    await until(() => watcherSaid.includes("queued:"), "watch of a queued task said nothing");

    await release(first);
    await until(() => started(third), "the third never started after the first ended");
    assert.equal(await stateOf(first), "succeeded");
    assert.equal(await stateOf(third), "running");
    assert.equal(await stateOf(second), "created", "the killed waiter's task ran");
    assert.equal(existsSync(taskWorkspace(ws.dataDir, fourth)), false, "the cancelled task ran");
    await release(third);
    const wait = await cli(["wait", third, "--timeout", "60s"]);
    assert.equal(wait.code, 0, wait.stderr);
    const watched = await watching;
    assert.equal(watched.code, 0, watched.stderr);
    assert.match(watched.stderr, /^queued: it starts when a running background task ends/m);
    assert.match(watched.stdout, /finished: state=succeeded/);
    const fourthLog = await cli(["logs", "--host-log", fourth]);
    assert.match(fourthLog.stdout, /ended \(cancelled\) before its turn came/);
  });

  test("start --detach runs a created task in the background and prints its id", async () => {
    const create = await cli([
      "create",
      "--repo",
      ws.repo,
      "--sandbox",
      "none",
      "--prompt",
      "later",
      "--",
      "true",
    ]);
    assert.equal(create.code, 0, create.stderr);
    const id = idOf(create);
    const start = await cli(["start", "-d", id]);
    assert.equal(start.code, 0, start.stderr);
    assert.equal(start.stdout, `${id}\n`);
    assert.match(start.stderr, /hint: follow it with `warden watch /);
    const wait = await cli(["wait", id, "--timeout", "60s"]);
    assert.equal(wait.code, 0, wait.stderr);
  });

  test("a killed running task gives its slot back to the next in line", async () => {
    const first = await detach("holder");
    await until(() => started(first), "the holder never started");
    const next = await detach("next");
    assert.equal(await stateOf(next), "queued");
    const holder = JSON.parse(
      await readFile(join(ws.dataDir, "tasks", first, "attach.lock"), "utf8"),
    ) as { pid: number };
    process.kill(holder.pid, "SIGKILL");
    // Outside a sandbox the holder's agent outlives it: released, it ends.
    await release(first);
    await until(() => started(next), "the next never started after the holder died");
    await release(next);
    const wait = await cli(["wait", next, "--timeout", "60s"]);
    assert.equal(wait.code, 0, wait.stderr);
  });
});
