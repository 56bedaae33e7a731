// The real Claude Code CLI in a warden task that is suspended and runs on: `warden suspend` stops
// it at the agent's next turn boundary (or at once with --now) and frees its sandbox, the task
// reads `suspended` until `warden resume`; and the model API's usage limit (a 429 with its reset
// time) suspends it by itself until the reset, or ends it when the reset comes after its deadline.
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import {
  agentEvent,
  claudeEnv,
  claudeSuite,
  NO_CLAUDE_SYSTEM,
  runClaude,
  shownToModel,
  waitForEvent,
  warden,
} from "./claudeTasks.js";
import {
  assertEndedPastDeadline,
  cleanEnv,
  collect,
  runCli,
  startCli,
  taskEvents,
} from "./fixtures.js";
import { REAL_KEY } from "./claudeTasks.js";
import type { ScriptedTurn } from "../support/scriptedAnthropic.js";

/** A Bash call that keeps the tool busy for about `seconds` (Claude Code refuses a bare sleep). */
function busy(seconds: number): { command: string } {
  return { command: `for i in $(seq 1 ${seconds * 10}); do sleep 0.1; done; echo woke` };
}

/** The Anthropic subscription's usage-limit headers, for a limit that resets at `resetAt`. */
function unifiedLimit(resetAt: () => number): () => Record<string, string> {
  return () => ({
    "anthropic-ratelimit-unified-status": "rejected",
    "anthropic-ratelimit-unified-reset": String(Math.ceil(resetAt() / 1000)),
  });
}

describe("suspending a Claude Code task and running it on", { skip: NO_CLAUDE_SYSTEM }, () => {
  const suite = claudeSuite();

  test("suspend waits for the turn boundary, frees the sandbox and leaves the task suspended; resume runs it on to its end", async () => {
    const api = await suite.scripted([
      { kind: "tool_use", name: "Bash", input: busy(4), text: "Working." },
      // Claude Code may ask again before the stop reaches it; this answer then waits for it.
      { kind: "slow", text: "Still working.", stallMs: 3000 },
      { kind: "text", text: "Done after the pause." },
    ]);
    const env = cleanEnv({ ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: REAL_KEY });
    const child = startCli(
      suite.ws.dataDir,
      ["run", "--repo", suite.ws.repo, "--prompt", "work, then stop", "--json"],
      { env },
    );
    const running = collect(child);
    const tasks = await Tasks.open({ dataDir: suite.ws.dataDir, env: {} });
    // The first task of this describe's data directory that has started its tool call.
    let id = "";
    for (let i = 0; i < 600 && id === ""; i++) {
      const [task] = await tasks.list({ states: ["running"] });
      if (task !== undefined) id = task.id;
      else await new Promise((r) => setTimeout(r, 100));
    }
    assert.notEqual(id, "", "the task started");
    await waitForEvent(suite.ws, id, agentEvent("tool_use"));
    const asked = await warden(suite.ws, api, ["suspend", id]);
    assert.equal(asked.code, 0, asked.stderr);
    assert.match(asked.stdout, /suspending at its next turn boundary/);

    const first = await running;
    assert.equal(first.code, 1, first.stderr);
    assert.equal((JSON.parse(first.stdout) as { state: string }).state, "suspended");
    assert.match(first.stderr, /warden resume/);
    const seen = await taskEvents(suite.ws.dataDir, id);
    const stopping = seen.findIndex((e) => e.type === "stopping" && e.reason === "suspend");
    const toolResult = seen.findIndex((e) => e.type === "agent" && e.kind === "tool_result");
    assert.ok(stopping > 0, "the executor stopped the sandbox to suspend the task");
    assert.ok(toolResult >= 0 && toolResult < stopping, "it waited for the tool's result");
    assert.equal(seen.at(-1)?.type, "suspended");
    assert.equal(seen.at(-1)?.reason, "request");

    const ls = await warden(suite.ws, api, ["ls", "--json"]);
    const listed = JSON.parse(ls.stdout) as { id: string; state: string }[];
    assert.equal(listed.find((t) => t.id === id)?.state, "suspended", ls.stdout);
    const show = await warden(suite.ws, api, ["show", id]);
    assert.match(show.stdout, /^suspended: +on request since .*`warden resume /m);
    const wait = await warden(suite.ws, api, ["wait", id]);
    assert.equal(wait.code, 4, "nobody will run it on by itself");
    assert.match(wait.stderr, /hint: resume it with `warden resume/);

    const resumed = await warden(suite.ws, api, ["resume", id, "--json"]);
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal((JSON.parse(resumed.stdout) as { state: string }).state, "succeeded");
    const after = await taskEvents(suite.ws.dataDir, id);
    assert.ok(
      after.some((e) => e.type === "attached" && e.attempt === 2 && e.resumed === "request"),
      "the second attach says it resumed a suspension",
    );
    // The same session goes on: the resumed run shows the model the turns before the suspension.
    assert.ok(
      after.some((e) => e.type === "resumed"),
      "the second attach started from the checkpoint",
    );
    const shown = shownToModel(api.turns().at(-1)?.body);
    assert.match(shown, /work, then stop/, "the first prompt, from the session");
    assert.match(shown, /seq 1 40/, "the tool call before the suspension");
    assert.match(shown, /was paused \(the task was suspended\)/, "told it was paused");
    assert.doesNotMatch(shown, /was interrupted/, "not told it was interrupted");
    const show2 = await warden(suite.ws, api, ["show", id]);
    assert.match(show2.stdout, /^resumed: +from checkpoint \d+ after a suspension/m);
    const again = await warden(suite.ws, api, ["resume", id]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is succeeded, so there is nothing to resume/);
  });

  test("suspend --now stops a busy tool at once", async () => {
    const api = await suite.scripted([
      { kind: "tool_use", name: "Bash", input: busy(60) },
      { kind: "text", text: "Done." },
    ]);
    const child = startCli(
      suite.ws.dataDir,
      ["run", "--repo", suite.ws.repo, "--prompt", "a long tool", "--json", "--quiet"],
      { env: cleanEnv({ ANTHROPIC_BASE_URL: api.url, ANTHROPIC_API_KEY: REAL_KEY }) },
    );
    const running = collect(child);
    await api.waitFor((r) => r.kind === "turn", 60_000);
    const tasks = await Tasks.open({ dataDir: suite.ws.dataDir, env: {} });
    let id = "";
    for (let i = 0; i < 600 && id === ""; i++) {
      const [task] = await tasks.list({ states: ["running"] });
      if (task !== undefined) id = task.id;
      else await new Promise((r) => setTimeout(r, 100));
    }
    await waitForEvent(suite.ws, id, agentEvent("tool_use"));
    const askedAt = Date.now();
    const asked = await warden(suite.ws, api, ["suspend", id, "--now"]);
    assert.equal(asked.code, 0, asked.stderr);
    const first = await running;
    assert.ok(Date.now() - askedAt < 30_000, "it did not wait for the 60 s tool");
    assert.equal((JSON.parse(first.stdout) as { state: string }).state, "suspended");
  });

  /** A usage limit that holds from the first refused request until `waitMs` after it. */
  function usageLimit(waitMs: number): { turn: ScriptedTurn; resetAt: () => number } {
    let resetAt = 0;
    const reset = (): number => {
      if (resetAt === 0) resetAt = Date.now() + waitMs;
      return resetAt;
    };
    return {
      turn: {
        kind: "error",
        status: 429,
        type: "rate_limit_error",
        message: "usage limit reached",
        until: () => (resetAt === 0 ? Number.MAX_SAFE_INTEGER : resetAt),
        headers: unifiedLimit(reset),
      },
      resetAt: () => resetAt,
    };
  }

  test("a 429 whose usage limit resets in a few seconds suspends the task, which resumes by itself at the reset and succeeds", async () => {
    const limit = usageLimit(8000);
    const api = await suite.scripted([limit.turn, { kind: "text", text: "Done after the limit." }]);
    const run = await runClaude(suite.ws, api, "say done", ["--json"]);
    assert.equal(run.code, 0, run.stderr);
    const ended = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(ended.state, "succeeded");
    assert.equal(ended.summary, "Done after the limit.");
    const id = String(ended.id);
    const seen = await taskEvents(suite.ws.dataDir, id);
    const told = seen.find((e) => e.type === "usage_limit");
    assert.ok(told !== undefined);
    assert.equal(told.verdict, "wait");
    assert.equal(told.source, "anthropic-ratelimit-unified-reset");
    const suspended = seen.find((e) => e.type === "suspended");
    assert.ok(suspended !== undefined);
    assert.equal(suspended.reason, "usage_limit");
    const resetAt = limit.resetAt();
    assert.ok(typeof suspended.resumeAt === "number" && suspended.resumeAt >= resetAt - 1000);
    const resumed = seen.find((e) => e.type === "attached" && e.resumed === "usage_limit");
    assert.ok(resumed !== undefined, "it was attached again to resume");
    assert.ok(resumed.at >= resetAt - 1000, "not before the reset");
    const answered = api.turns().filter((r) => r.turn === 1);
    assert.equal(answered.length, 1, "the script went on after the reset");
    assert.match(run.stderr, /usage limit was reached; the task is suspended until/);
  });

  test("a usage limit after a step resumes the session at the reset, and the model is told it was paused, not interrupted", async () => {
    const limit = usageLimit(6000);
    const api = await suite.scripted([
      { kind: "tool_use", name: "Bash", input: { command: "echo first step" } },
      // A second step between the first and the limit: the session resumed at the reset holds
      // steps from before the pause, whichever boundary's checkpoint the suspension waited for.
      { kind: "tool_use", name: "Bash", input: busy(4) },
      limit.turn,
      { kind: "text", text: "Done after the pause." },
    ]);
    const run = await runClaude(suite.ws, api, "one step, then more", ["--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.equal((JSON.parse(run.stdout) as { summary: string }).summary, "Done after the pause.");
    const id = (JSON.parse(run.stdout) as { id: string }).id;
    const seen = await taskEvents(suite.ws.dataDir, id);
    assert.equal(seen.find((e) => e.type === "resumed")?.reason, "suspended");
    const shown = shownToModel(api.turns().at(-1)?.body);
    assert.match(shown, /echo first step/, "the step before the limit, from the session");
    assert.match(shown, /was paused \(the task was suspended\)/, "told it was paused");
    assert.doesNotMatch(shown, /was interrupted/, "not told it was interrupted");
  });

  test("while it waits for the reset the task shows when it resumes; killed as it waits, `warden serve` resumes it at the reset", async () => {
    const limit = usageLimit(10_000);
    const api = await suite.scripted([limit.turn, { kind: "text", text: "Resumed by serve." }]);
    const child = startCli(
      suite.ws.dataDir,
      ["run", "--repo", suite.ws.repo, "--prompt", "say it", "--json", "--quiet"],
      { env: claudeEnv(api) },
    );
    const exited = collect(child);
    const tasks = await Tasks.open({ dataDir: suite.ws.dataDir, env: {} });
    await api.waitFor((r) => r.kind === "turn", 60_000);
    const id = (await tasks.list()).at(-1)?.id ?? "";
    await waitForEvent(suite.ws, id, (e) => e.type === "suspended");
    // The run's process waits for the reset, holding resume.lock.
    for (let i = 0; i < 50 && (await tasks.get(id)).resumeWaiter !== true; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    const ls = await warden(suite.ws, api, ["ls"]);
    assert.match(ls.stdout, /suspended\(until \d\d:\d\d:\d\d\)/);
    const show = await warden(suite.ws, api, ["show", id]);
    assert.match(
      show.stdout,
      /^suspended: +the model API's usage limit since .*resumes by itself at/m,
    );
    const waiting = await warden(suite.ws, api, ["show", id, "--json"]);
    const view = JSON.parse(waiting.stdout) as { suspended: { resumeAt: string } };
    assert.ok(Date.parse(view.suspended.resumeAt) >= limit.resetAt());

    child.kill("SIGKILL");
    await exited;
    assert.equal((await tasks.get(id)).resumeWaiter, false, "nobody waits for it now");
    const serve = startCli(suite.ws.dataDir, ["serve", "--listen", "127.0.0.1:0"], {
      env: claudeEnv(api),
    });
    const served = collect(serve);
    try {
      const wait = await warden(suite.ws, api, ["wait", id, "--json", "--timeout", "3m"]);
      assert.equal(wait.code, 0, wait.stdout + wait.stderr);
      assert.equal((JSON.parse(wait.stdout) as { summary: string }).summary, "Resumed by serve.");
    } finally {
      serve.kill("SIGTERM");
      await served;
    }
    const seen = await taskEvents(suite.ws.dataDir, id);
    const resumed = seen.find((e) => e.type === "attached" && e.resumed === "usage_limit");
    assert.ok(resumed !== undefined && resumed.at >= limit.resetAt() - 1000);
  });

  test("a background run gives its turn back while it waits for the reset: with maxRunning 1 another task runs meanwhile", async () => {
    const configHome = join(suite.ws.root, "config-one");
    await mkdir(join(configHome, "warden"), { recursive: true });
    await writeFile(join(configHome, "warden", "config.yaml"), "maxRunning: 1\n");
    const limit = usageLimit(12_000);
    const api = await suite.scripted([
      limit.turn,
      { kind: "text", text: "Done in the background." },
    ]);
    const env = { ...claudeEnv(api), XDG_CONFIG_HOME: configHome };
    const detached = await runCli(
      suite.ws.dataDir,
      ["run", "--repo", suite.ws.repo, "--prompt", "background", "--detach"],
      { env },
    );
    assert.equal(detached.code, 0, detached.stderr);
    const id = detached.stdout.trim();
    await waitForEvent(suite.ws, id, (e) => e.type === "suspended");
    const tasks = await Tasks.open({ dataDir: suite.ws.dataDir, env: {} });
    // The event comes just before the executor writes suspended.json and lets go.
    for (let i = 0; i < 100 && (await tasks.get(id)).state === "running"; i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.equal((await tasks.get(id)).state, "suspended", "not queued while it waits");
    const other = await runCli(
      suite.ws.dataDir,
      ["run", "--repo", suite.ws.repo, "--prompt", "meanwhile", "--detach", "--", "true"],
      { env },
    );
    const otherId = other.stdout.trim();
    const otherWait = await runCli(suite.ws.dataDir, ["wait", otherId, "--json"], { env });
    assert.equal(otherWait.code, 0, otherWait.stdout + otherWait.stderr);
    assert.equal((await tasks.get(id)).state, "suspended", "the other ended before the reset");
    const wait = await runCli(suite.ws.dataDir, ["wait", id, "--json", "--timeout", "3m"], { env });
    assert.equal(wait.code, 0, wait.stdout + wait.stderr);
    assert.equal(
      (JSON.parse(wait.stdout) as { summary: string }).summary,
      "Done in the background.",
    );
  });

  test("a 429 whose usage limit resets after the deadline ends the task at once: failed, stopped by the usage limit", async () => {
    const limit = usageLimit(3_600_000);
    const api = await suite.scripted([limit.turn]);
    const started = Date.now();
    const run = await runClaude(suite.ws, api, "say done", ["--json", "--deadline", "10m"]);
    assert.ok(Date.now() - started < 60_000, "it did not wait");
    await assertEndedPastDeadline(suite.ws.dataDir, run);
  });
});
