// Nothing waits silently: `wait` and `watch` of a task nobody runs return at once with exit 4
// and how to start it; a created task past its deadline shows as expired and gc removes it; a
// message to a command agent, which has no way to read one, is refused before the inbox is
// touched. Every test runs the built `warden` as a user would.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, test } from "node:test";
import { NOBODY_RUNS_GRACE_MS } from "../../src/cli/nobodyRuns.js";
import {
  AWAIT_RELEASE,
  collect,
  descendants,
  idOf,
  NO_SYSTEM,
  runCli,
  startCli,
  workspace,
  type CliResult,
} from "../e2e/fixtures.js";
import { Tasks } from "../../src/store/index.js";
import { describeCli } from "../support/cliSuite.js";

/** How long a verb may take to say that nobody runs a task: the grace, and Node's start-up. */
const PROMPTLY_MS = NOBODY_RUNS_GRACE_MS + 8_000;

/** Runs a verb of the CLI, stopping it (a hang fails the test) once it outlasts PROMPTLY_MS twice. */
async function timed(dataDir: string, args: string[]): Promise<CliResult & { ms: number }> {
  const started = Date.now();
  const child = startCli(dataDir, args);
  const stopper = setTimeout(() => child.kill("SIGKILL"), 2 * PROMPTLY_MS);
  const result = await collect(child).finally(() => {
    clearTimeout(stopper);
  });
  return { ...result, ms: Date.now() - started };
}

function assertNobodyRuns(result: CliResult & { ms: number }, id: string, how: RegExp): void {
  assert.equal(result.code, 4, result.stderr);
  assert.match(result.stderr, how);
  assert.match(result.stderr, /nobody runs it/);
  assert.ok(result.stderr.includes(`hint: start it with \`warden start ${id}\``), result.stderr);
  assert.ok(result.ms < PROMPTLY_MS, `it took ${result.ms} ms`);
}

describeCli("tasks nobody runs", (ws) => {
  async function created(extra: string[] = []): Promise<string> {
    const args = ["create", "--repo", ws.repo, "--prompt", "idle", ...extra, "--", "true"];
    return idOf(await runCli(ws.dataDir, args));
  }

  test("wait on a created task returns promptly, says nobody runs it, and exits 4", async () => {
    const id = await created();
    const wait = await timed(ws.dataDir, ["wait", id]);
    assertNobodyRuns(wait, id, new RegExp(`task ${id} was created`));
    const json = await timed(ws.dataDir, ["wait", id, "--json"]);
    assert.equal(json.code, 4);
    assert.equal((JSON.parse(json.stdout) as { code: string }).code, "TASK_NOT_RUNNING");
  });

  test("watch on a created task returns promptly, says nobody runs it, and exits 4", async () => {
    const id = await created();
    const watch = await timed(ws.dataDir, ["watch", id]);
    assertNobodyRuns(watch, id, new RegExp(`task ${id} was created`));
  });

  test("fetch of a created task says to start it, not to wait for it", async () => {
    const id = await created();
    const fetch = await runCli(ws.dataDir, ["fetch", id]);
    assert.equal(fetch.code, 1);
    assert.ok(fetch.stderr.includes(`hint: start it with \`warden start ${id}\``), fetch.stderr);
  });

  test("a created task past its deadline shows as expired in ls and show, and gc removes it", async () => {
    const dataDir = join(ws.root, "expired");
    const args = [
      "create",
      "--repo",
      ws.repo,
      "--prompt",
      "late",
      "--deadline",
      "2s",
      "--",
      "true",
    ];
    const late = idOf(await runCli(dataDir, args));
    const fresh = idOf(
      await runCli(dataDir, ["create", "--repo", ws.repo, "--prompt", "fresh", "--", "true"]),
    );
    await sleep(2_500);
    // Rows are found by title: ls shows ids shortened.
    const rows = (await runCli(dataDir, ["ls"])).stdout.split("\n");
    assert.match(rows.find((row) => row.endsWith(" late")) ?? "", /\screated\(expired\)\s/);
    assert.match(rows.find((row) => row.endsWith(" fresh")) ?? "", /\screated\s/);
    const show = await runCli(dataDir, ["show", late]);
    assert.match(show.stdout, /^state:\s+created \(expired\)$/m);
    const json = await runCli(dataDir, ["show", late, "--json"]);
    assert.equal((JSON.parse(json.stdout) as { expired?: boolean }).expired, true);

    const gc = await runCli(dataDir, ["gc", "--older-than", "0s", "--json"]);
    assert.equal(gc.code, 0, gc.stderr);
    assert.deepEqual((JSON.parse(gc.stdout) as { removed: string[] }).removed, [late]);
    assert.equal(existsSync(join(dataDir, "tasks", late)), false);
    assert.equal(
      existsSync(join(dataDir, "tasks", fresh)),
      true,
      "a task that can still run stays",
    );
  });

  test("send to a command agent's task is refused with MESSAGES_NOT_TAKEN and nothing reaches its inbox", async () => {
    const id = await created();
    const send = await runCli(ws.dataDir, ["send", id, "hello", "--json"]);
    assert.equal(send.code, 2, send.stderr);
    const error = JSON.parse(send.stdout) as { code: string; hint: string };
    assert.equal(error.code, "MESSAGES_NOT_TAKEN");
    assert.match(error.hint, /`claude`/);
    assert.equal(existsSync(join(ws.dataDir, "tasks", id, "inbox.json")), false);
    const text = await runCli(ws.dataDir, ["send", id, "hello"]);
    assert.equal(text.code, 2);
    assert.doesNotMatch(text.stdout, /sent message/);
    assert.match(text.stderr, /takes no messages/);
  });
});

describe("a task whose runner died", { skip: NO_SYSTEM }, () => {
  test("wait and watch on an interrupted task return promptly with exit 4", async (t) => {
    const ws = await workspace();
    t.after(() => ws.cleanup());
    const script = `${AWAIT_RELEASE}; echo done > done.txt`;
    const args = ["run", "--repo", ws.repo, "--prompt", "killed", "--", "sh", "-c", script];
    const child = startCli(ws.dataDir, args);
    const exited = collect(child);
    let id: string | undefined;
    for (let i = 0; i < 600 && id === undefined; i++) {
      await sleep(50);
      const ls = await runCli(ws.dataDir, ["ls", "--json"]);
      const running = (JSON.parse(ls.stdout) as { id: string; state: string }[]).find(
        (task) => task.state === "running",
      );
      if (
        running !== undefined &&
        existsSync(join(ws.dataDir, "tasks", running.id, "workspace", "started"))
      )
        id = running.id;
    }
    assert.ok(id !== undefined, "the task never started");
    const sandbox = await descendants(child.pid ?? 0);
    child.kill("SIGKILL");
    await exited;
    for (const { pid } of sandbox) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // It died with warden, as it should.
      }
    }
    const wait = await timed(ws.dataDir, ["wait", id]);
    assertNobodyRuns(wait, id, new RegExp(`task ${id} was interrupted`));
    const watch = await timed(ws.dataDir, ["watch", id]);
    assertNobodyRuns(watch, id, new RegExp(`task ${id} was interrupted`));
  });

  test("wait on a created task that is started within the grace waits for its end", async (t) => {
    const ws = await workspace();
    t.after(() => ws.cleanup());
    const args = ["create", "--repo", ws.repo, "--prompt", "soon", "--", "true"];
    const id = idOf(await runCli(ws.dataDir, args));
    const wait = collect(startCli(ws.dataDir, ["wait", id]));
    // `start` attaches only after its own start and its checks (a trial sandbox among them),
    // which on a loaded machine take a good part of the grace: it is begun just after `wait`,
    // whose own start means it finds the task created and unattended first.
    await sleep(NOBODY_RUNS_GRACE_MS / 20);
    const start = await runCli(ws.dataDir, ["start", id]);
    assert.equal(start.code, 0, start.stderr);
    const waited = await wait;
    assert.equal(waited.code, 0, waited.stderr);
    assert.match(waited.stdout, new RegExp(`${id} succeeded`));
  });
  test("wait on a created task whose start takes longer than the grace waits for its end", async (t) => {
    const ws = await workspace();
    t.after(() => ws.cleanup());
    const args = ["create", "--repo", ws.repo, "--prompt", "slow start", "--", "true"];
    const id = idOf(await runCli(ws.dataDir, args));
    // A `warden start` whose checks are slow holds start.lock and has not attached yet: this
    // test holds it for three graces, as such a start would.
    const tasks = await Tasks.open({ dataDir: ws.dataDir, env: {} });
    const starting = await tasks.holdStarting(id);
    assert.ok(starting !== undefined);
    const wait = timed(ws.dataDir, ["wait", id]);
    await sleep(3 * NOBODY_RUNS_GRACE_MS);
    const start = await runCli(ws.dataDir, ["start", id]);
    starting.release();
    assert.equal(start.code, 0, start.stderr);
    const waited = await wait;
    assert.equal(waited.code, 0, waited.stderr);
    assert.match(waited.stdout, new RegExp(`${id} succeeded`));
  });
});
