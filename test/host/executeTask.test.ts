// One task end to end in process, with real bubblewrap, real git and the built runner.
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { after, before, describe, test } from "node:test";
import { TEST_LIMITS } from "../support/testBounds.js";
import { createTask, executeTask, taskLayout, type CreateTaskInput } from "../../src/host/index.js";
import type { ExecuteOutcome } from "../../src/host/executeTask.js";
import type { Reporter } from "../../src/host/reporter.js";
import type { TaskEvent, TerminalRecord } from "../../src/store/index.js";
import { git, hostFixture, NO_SANDBOX, type HostFixture } from "./fixtures.js";

function terminalOf(outcome: ExecuteOutcome): TerminalRecord {
  if (outcome.kind !== "finished") assert.fail(`the task was ${outcome.kind}`);
  return outcome.terminal;
}

function details(terminal: TerminalRecord): Record<string, unknown> {
  return terminal.details ?? {};
}

/** A reporter that keeps what it was told. */
function recorder(): Reporter & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    progress: (line) => lines.push(`progress: ${line}`),
    note: (text) => lines.push(`note: ${text}`),
    warn: (text) => lines.push(`warn: ${text}`),
    done: () => undefined,
  };
}

async function events(fx: HostFixture, id: string): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for await (const event of fx.tasks.watch(id, { follow: false })) out.push(event);
  return out;
}

describe("executeTask", { skip: NO_SANDBOX }, () => {
  let fx: HostFixture;
  before(async () => {
    fx = await hostFixture();
  });
  after(async () => {
    await fx.cleanup();
  });

  function input(command: string[], over: Partial<CreateTaskInput> = {}): CreateTaskInput {
    return {
      repo: fx.repo,
      prompt: "do the task\n",
      agent: "command",
      command,
      limits: TEST_LIMITS,
      ...over,
    };
  }

  test("a task that commits succeeds with its verified head, and leaves no share or workspace", async () => {
    // The workspace leaves the task's directory before executeTask returns; its deletion
    // (a background rm of a staging entry) ends soon after.
    const { summary } = await createTask(
      fx.tasks,
      input(["sh", "-c", "echo hi > hi.txt && git add hi.txt && git commit -qm hi"]),
    );
    const reporter = recorder();
    const outcome = await executeTask(fx.tasks, summary.id, { reporter, env: {} });
    assert.equal(outcome.kind, "finished");
    const terminal = terminalOf(outcome);
    assert.equal(terminal.state, "succeeded");
    assert.equal(details(terminal).base, fx.head);
    assert.equal(details(terminal).changes, true);
    const layout = taskLayout(fx.tasks.dataDir, summary.id);
    assert.ok(existsSync(layout.result("changes.bundle")));
    assert.ok(existsSync(layout.result("result.json")));
    for (const gone of [layout.share, layout.workspace, layout.egress]) {
      assert.equal(existsSync(gone), false, `${gone} is removed after the attach`);
    }
    const staging = join(fx.tasks.dataDir, "tmp");
    const removals = () => readdirSync(staging).filter((name) => name.startsWith("rm."));
    for (let waited = 0; removals().length > 0; waited += 20) {
      if (waited > 10_000)
        assert.fail(`the workspace is still being removed: ${removals().join()}`);
      await sleep(20);
    }
    const log = await readFile(layout.guestLog, "utf8");
    assert.match(log, /^\d\d:\d\d:\d\d guest\[[0-9a-z]{8}\]: warden-guest: /m);
    const types = (await events(fx, summary.id)).map((e) => e.type);
    assert.ok(types.includes("sandbox"));
    assert.ok(types.includes("progress"));
    assert.equal(types.at(-1), "finished");
    assert.ok(reporter.lines.some((l) => l.startsWith("progress: warden-guest:")));
    assert.equal(await git(fx.repo, "branch", "--list", "warden/*"), "", "nothing is fetched yet");
  });

  test("an agent that runs past its timeout is failed, stopped by host_timeout", async () => {
    const { summary } = await createTask(fx.tasks, input(["sleep", "60"], { timeoutSeconds: 1 }));
    const started = Date.now();
    const outcome = await executeTask(fx.tasks, summary.id, { env: {} });
    const terminal = terminalOf(outcome);
    assert.equal(terminal.state, "failed");
    assert.equal(terminal.stoppedBy, "host_timeout");
    assert.ok(Date.now() - started < 15_000);
  });

  test("a task still running at its deadline is stopped and failed, stopped by the deadline", async () => {
    const { summary } = await createTask(fx.tasks, input(["sleep", "60"], { deadline: "2s" }));
    const started = Date.now();
    const outcome = await executeTask(fx.tasks, summary.id, { env: {} });
    const terminal = terminalOf(outcome);
    assert.equal(terminal.state, "failed");
    assert.equal(terminal.stoppedBy, "deadline");
    assert.ok(Date.now() - started < 15_000);
  });

  test("a cancel request stops the sandbox within the grace and records cancelled", async () => {
    const { summary } = await createTask(fx.tasks, input(["sh", "-c", "touch started; sleep 60"]));
    const layout = taskLayout(fx.tasks.dataDir, summary.id);
    const running = executeTask(fx.tasks, summary.id, { env: {}, stopGraceMs: 5000 });
    while (!existsSync(`${layout.workspace}/started`)) await sleep(20);
    const asked = Date.now();
    await fx.tasks.cancel(summary.id);
    const outcome = await running;
    const took = Date.now() - asked;
    const terminal = terminalOf(outcome);
    assert.equal(terminal.state, "cancelled");
    assert.ok(terminal.cancel !== undefined, "the record names the cancel request");
    assert.ok(took < 5000, `ended ${took} ms after the request, within the grace`);
  });

  test("an abort leaves the task interrupted, and the next attach runs it to the end", async () => {
    const { summary } = await createTask(
      fx.tasks,
      input(["sh", "-c", "touch started; sleep 2; echo done > done.txt"]),
    );
    const layout = taskLayout(fx.tasks.dataDir, summary.id);
    const controller = new AbortController();
    const running = executeTask(fx.tasks, summary.id, { env: {}, signal: controller.signal });
    while (!existsSync(`${layout.workspace}/started`)) await sleep(20);
    controller.abort();
    assert.deepEqual(await running, { kind: "interrupted", id: summary.id });
    assert.equal((await fx.tasks.get(summary.id)).state, "interrupted");
    const again = await executeTask(fx.tasks, summary.id, { env: {} });
    const terminal = terminalOf(again);
    assert.equal(terminal.state, "succeeded");
    assert.equal(terminal.attempts, 2);
  });

  test("a variable named with --env that is not set refuses the attach and leaves the task created", async () => {
    const { summary } = await createTask(fx.tasks, input(["true"], { envNames: ["NOT_SET_HERE"] }));
    await assert.rejects(executeTask(fx.tasks, summary.id, { env: {} }), { code: "MISSING_ENV" });
    assert.equal((await fx.tasks.get(summary.id)).state, "created");
  });

  test("a sandbox that cannot run here is refused with its fix, never replaced by another", async () => {
    const { summary } = await createTask(fx.tasks, input(["true"]));
    await assert.rejects(
      executeTask(fx.tasks, summary.id, {
        env: {},
        sandboxOptions: { bwrap: { bwrap: "/nonexistent/bwrap" } },
      }),
      (error: Error & { code?: string; hint?: string }) => {
        assert.equal(error.code, "SANDBOX_UNAVAILABLE");
        assert.match(error.hint ?? "", /install bubblewrap/);
        return true;
      },
    );
    assert.equal((await fx.tasks.get(summary.id)).state, "created");
  });

  test("the none sandbox runs only when asked, and says loudly that it is not isolated", async () => {
    const { summary } = await createTask(fx.tasks, input(["true"], { sandbox: "none" }));
    const reporter = recorder();
    const outcome = await executeTask(fx.tasks, summary.id, { env: {}, reporter });
    assert.equal(terminalOf(outcome).state, "succeeded");
    assert.ok(reporter.lines.some((l) => l.startsWith("warn:") && /NOT isolated/.test(l)));
    const warnings = (await events(fx, summary.id)).filter((e) => e.type === "warning");
    assert.ok(warnings.some((e) => /NOT isolated/.test(String(e.text))));
  });

  test("a finished task is not run again", async () => {
    const { summary } = await createTask(fx.tasks, input(["true"]));
    await executeTask(fx.tasks, summary.id, { env: {} });
    await assert.rejects(executeTask(fx.tasks, summary.id, { env: {} }), { code: "TASK_FINISHED" });
  });
});
