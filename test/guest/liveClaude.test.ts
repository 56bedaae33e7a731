// The runner with the real Claude Code CLI and a host listening on control.sock (a fake one,
// speaking the real protocol): events reach the host while the agent runs, messages are
// delivered at turn boundaries and answered, and permission prompts are asked of the host.
import { strict as assert } from "node:assert";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { describe, test, type TestContext } from "node:test";
import { TRACE_LINE, type TracedPhase } from "../../src/lang/index.js";
import { REPLY_FILES_NOTE, type Result } from "../../src/protocol/index.js";
import { CLAUDE_BIN, PLACEHOLDER_KEY, claudeUnavailable } from "../support/claudeRun.js";
import {
  startScriptedAnthropic,
  type RecordedRequest,
  type ScriptedAnthropic,
  type ScriptedTurn,
} from "../support/scriptedAnthropic.js";
import {
  fetchChanges,
  git,
  makeTask,
  receivedOf,
  runGuest,
  type GuestRun,
} from "../support/share.js";
import { skipWhen } from "../support/skipWhen.js";
import { startFakeHost, type FakeHost, type FakeHostOptions } from "./fakeHost.js";

const skip = skipWhen(claudeUnavailable());

interface LiveRun {
  readonly api: ScriptedAnthropic;
  readonly host: FakeHost;
  readonly run: GuestRun;
  readonly result: Result;
}

interface RunOptions {
  readonly settings?: Record<string, unknown>;
  /** The host, made by the test when it acts on it during the run; a plain one otherwise. */
  readonly host?: FakeHost;
  /** Run without control.sock. */
  readonly noHost?: boolean;
  /** Called once the runner started. */
  readonly onStart?: (child: ChildProcess) => void;
  readonly args?: readonly string[];
}

/** A scripted API for a test, closed after it. */
async function scriptedApi(t: TestContext, script: readonly ScriptedTurn[]) {
  const api = await startScriptedAnthropic(script);
  t.after(() => api.close());
  return api;
}

/** A fake host for a test, closed after it. */
async function fakeHost(t: TestContext, options: FakeHostOptions = {}) {
  const host = await startFakeHost(options);
  t.after(() => host.close());
  return host;
}

/** Runs one Claude task through the built runner, against a scripted API and a fake host. */
async function runClaude(
  t: TestContext,
  api: ScriptedAnthropic,
  options: RunOptions = {},
): Promise<LiveRun> {
  const host = options.host ?? (await fakeHost(t));
  // task.json whole: makeTask's own settings are the command agent's.
  const fixture = await makeTask({
    taskJson: JSON.stringify({
      agent: "claude",
      agentProgram: CLAUDE_BIN,
      env: {
        ANTHROPIC_API_KEY: PLACEHOLDER_KEY,
        ANTHROPIC_BASE_URL: api.url,
        CLAUDE_CODE_MAX_RETRIES: "1",
      },
      timeoutSeconds: 120,
      ...options.settings,
    }),
    prompt: "do the task",
  });
  t.after(() => fixture.cleanup());
  const home = join(fixture.root, "home");
  await mkdir(home);
  const run = await runGuest(fixture, {
    args: ["--kill-grace-ms", "2000", ...(options.args ?? [])],
    env: {
      PATH: process.env.PATH,
      HOME: home,
      ...(options.noHost === true ? {} : { WARDEN_GUEST_SOCKETS: host.dir }),
    },
    ...(options.onStart === undefined ? {} : { onStart: options.onStart }),
  });
  return { api, host, run, result: receivedOf(run).result };
}

/**
 * The real CLI behind a script that lingers after it exits, as an agent slow to exit does (a
 * loaded machine, a flush at exit): the runner must not take a checkpoint in that moment.
 */
async function lingeringClaude(t: TestContext, seconds: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "warden-lingering-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const script = join(dir, "claude");
  await writeFile(
    script,
    `#!/bin/sh\n'${CLAUDE_BIN}' "$@"\nstatus=$?\nsleep ${seconds}\nexit $status\n`,
  );
  await chmod(script, 0o755);
  return script;
}

function types(events: readonly Record<string, unknown>[]): string[] {
  return events.map((e) => String(e.type));
}

/** The texts of the blocks the model was shown in one request, last message last. */
function shownTo(
  request: RecordedRequest | undefined,
): { role: string; blocks: Record<string, unknown>[] }[] {
  const body = request?.body as { messages?: { role: string; content: unknown }[] } | undefined;
  return (body?.messages ?? []).map((m) => ({
    role: m.role,
    blocks:
      typeof m.content === "string"
        ? [{ type: "text", text: m.content }]
        : Array.isArray(m.content)
          ? (m.content as Record<string, unknown>[])
          : [],
  }));
}

const COMMIT = "echo hello > hello.txt && git add hello.txt && git commit -q -m 'Add hello'";
const SLOW = "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do echo $i; sleep 2; done";

describe("the runner with the real Claude Code CLI and a host on the channel", { skip }, () => {
  test("the host receives the normalized events in order while the agent runs", async (t) => {
    const api = await scriptedApi(t, [
      { kind: "tool_use", name: "Bash", input: { command: COMMIT }, text: "I will commit." },
      { kind: "text", text: "Committed hello.txt." },
    ]);
    const host = await fakeHost(t);
    // Seen while the agent still runs: the tool call reaches the host before the model's answer.
    const toolUseSeen = host.waitForEvent((e) => e.type === "tool_use");
    const secondTurn = api.waitFor((r) => r.kind === "turn" && r.turn === 1);
    const order: string[] = [];
    void toolUseSeen.then(
      () => order.push("tool_use at the host"),
      () => undefined,
    );
    void secondTurn.then(
      () => order.push("second model request"),
      () => undefined,
    );
    const { run, result } = await runClaude(t, api, { host });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(result.agentExitCode, 0);
    assert.deepEqual(result.warnings, []);
    assert.equal(order[0], "tool_use at the host");

    const events = host.events();
    const kinds = types(events).filter((k) =>
      ["session", "tool_use", "tool_result", "usage", "result"].includes(k),
    );
    assert.deepEqual(kinds, ["session", "tool_use", "tool_result", "usage", "result"]);
    const use = events.find((e) => e.type === "tool_use");
    assert.equal(use?.name, "Bash");
    assert.equal(use.summary, COMMIT);
    assert.equal(events.find((e) => e.type === "tool_result")?.ok, true);
    assert.deepEqual(events.at(-1), {
      type: "result",
      ok: true,
      turns: 2,
      costUSD: events.find((e) => e.type === "usage")?.costUSD,
      message: "Committed hello.txt.",
    });
    // Events are batched: fewer requests than events.
    const ops = host.recorded.map((r) => r.request.op);
    assert.ok(ops.filter((op) => op === "events").length < events.length, ops.join());
    // With no message pending the run ends after its first result.
    assert.deepEqual(
      ops.filter((op) => op !== "events" && !op.startsWith("checkpoint.")),
      ["inbox.next"],
    );
    // The last checkpoint, taken as the agent ended, carries its session and its commit.
    const last = host.checkpoints.at(-1);
    assert.equal(last?.sessionId, events.find((e) => e.type === "session")?.sessionId);
    assert.match(last?.session?.toString("utf8") ?? "", /Committed hello\.txt\./);
    assert.match(last?.bundle?.subarray(0, 20).toString("utf8") ?? "", /^# v[23] git bundle/);
    assert.equal(
      await git(run.repo, "log", "-1", "--format=%s", await fetchChanges(run, "live")),
      "Add hello",
    );
  });

  test("what the agent left uncommitted is in its last checkpoint and in its results, one commit made once, and the runner finishes the workspace's git while that checkpoint runs, however slowly the agent exits", async (t) => {
    const api = await scriptedApi(t, [
      {
        kind: "tool_use",
        name: "Bash",
        input: { command: "echo left > left.txt" },
        text: "I will leave a file.",
      },
      { kind: "text", text: "Left left.txt." },
    ]);
    const host = await fakeHost(t);
    const { run, result } = await runClaude(t, api, {
      host,
      args: ["--trace"],
      settings: { agentProgram: await lingeringClaude(t, 1) },
    });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.deepEqual(result.warnings, []);
    assert.equal(result.leftovers, true);
    const last = host.checkpoints.at(-1);
    assert.ok(last?.tip !== undefined, "the last checkpoint commits the uncommitted file");
    assert.match(last.bundle?.subarray(0, 20).toString("utf8") ?? "", /^# v[23] git bundle/);
    // The workspace is not walked a second time: the checkpoint's tip is the results' own commit
    // of the leftovers, on the agent's head.
    assert.equal(last.tip, result.head);
    assert.equal(last.head, result.base);
    assert.equal(
      await git(run.repo, "show", `${await fetchChanges(run, "left")}:left.txt`),
      "left",
    );

    const traced = run.stderr.split("\n").find((line) => line.includes(TRACE_LINE));
    const phases = JSON.parse(
      traced?.slice(traced.indexOf(TRACE_LINE) + TRACE_LINE.length) ?? "[]",
    ) as TracedPhase[];
    const phase = (name: string): TracedPhase => {
      const found = phases.find((p) => p.name === name);
      assert.ok(found !== undefined, `the trace has "${name}"`);
      return found;
    };
    const checkpoint = phase("agent: last checkpoint");
    const finish = phase("finish git");
    assert.ok(
      finish.start < checkpoint.end,
      `finish git began at ${finish.start}, after the last checkpoint ended at ${checkpoint.end}`,
    );
    assert.ok(phase("send the results").start >= checkpoint.end, "the results wait for it");
  });

  test("a pending message is the model's next user turn, its reply goes back, then the run ends", async (t) => {
    const api = await scriptedApi(t, [
      { kind: "text", text: "First answer." },
      { kind: "text", text: "Second answer." },
    ]);
    const host = await fakeHost(t, { messages: ["and a second question"] });
    const asked = api
      .waitFor((r) => r.kind === "turn" && r.turn === 1)
      .then(() => performance.now());
    const { run, result } = await runClaude(t, api, { host });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.deepEqual(result.warnings, []);
    assert.equal(api.turns().length, 2);
    const shown = shownTo(api.turns()[1]);
    const last = shown.at(-1);
    assert.equal(last?.role, "user");
    assert.ok(
      last.blocks.some((b) => b.text === `and a second question\n\n${REPLY_FILES_NOTE}`),
      JSON.stringify(last),
    );
    assert.ok(shown.at(-2)?.blocks.some((b) => b.text === "First answer."));
    assert.deepEqual(
      host.inbox.map((m) => [m.n, m.state, m.reply]),
      [[1, "delivered", "Second answer."]],
    );
    assert.deepEqual(
      host.recorded
        .map((r) => r.request.op)
        .filter((op) => op !== "events" && !op.startsWith("checkpoint.")),
      ["inbox.next", "inbox.reply", "inbox.next"],
    );
    assert.deepEqual(
      host
        .events()
        .filter((e) => e.type === "result")
        .map((e) => e.message),
      ["First answer.", "Second answer."],
    );
    // The agent's own last result is the run's.
    assert.equal(result.agentResult?.result, "Second answer.");
    const taken = host.inbox[0]?.takenAt ?? Number.NaN;
    t.diagnostic(
      `from the host handing out the message to the model's request: ${((await asked) - taken).toFixed(1)} ms`,
    );
  });

  test("a message sent while the agent works is delivered at the next turn boundary", async (t) => {
    const api = await scriptedApi(t, [
      { kind: "tool_use", name: "Bash", input: { command: "echo working" } },
      { kind: "text", text: "Worked." },
      { kind: "text", text: "Answered the late one." },
    ]);
    const host = await fakeHost(t);
    void host
      .waitForEvent((e) => e.type === "tool_use")
      .then(
        () => {
          host.send("a late question");
        },
        () => undefined,
      );
    const { run, result } = await runClaude(t, api, { host });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.deepEqual(result.warnings, []);
    assert.deepEqual(
      host.inbox.map((m) => [m.state, m.reply]),
      [["delivered", "Answered the late one."]],
    );
    const last = shownTo(api.turns()[2]).at(-1);
    assert.ok(last?.blocks.some((b) => b.text === `a late question\n\n${REPLY_FILES_NOTE}`));
  });

  test("a failed first turn ends the run without taking a pending message", async (t) => {
    const api = await scriptedApi(t, [
      {
        kind: "error",
        status: 400,
        type: "invalid_request_error",
        message: "bad thing",
        times: Infinity,
      },
    ]);
    const host = await fakeHost(t, { messages: ["never delivered"] });
    const { run, result } = await runClaude(t, api, { host });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(result.agentExitCode, 1);
    assert.deepEqual(
      host.inbox.map((m) => m.state),
      ["pending"],
    );
    assert.equal(host.recorded.filter((r) => r.request.op === "inbox.next").length, 0);
    assert.equal(host.events().at(-1)?.ok, false);
  });

  test('approve "prompt": the host denies, the model is told why, and the run completes', async (t) => {
    const api = await scriptedApi(t, [
      { kind: "tool_use", name: "Bash", input: { command: "echo no > denied.txt" } },
      { kind: "text", text: "It was denied." },
    ]);
    const asked: [string, string][] = [];
    const host = await fakeHost(t, {
      approve: (tool, input) => {
        asked.push([tool, input]);
        return Promise.resolve({ decision: "deny", reason: "a person said no: not today" });
      },
    });
    const { run, result } = await runClaude(t, api, { host, settings: { approve: "prompt" } });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(result.agentExitCode, 0);
    assert.deepEqual(result.warnings, []);
    assert.equal(asked.length, 1);
    const [first] = asked;
    assert.ok(first !== undefined);
    assert.equal(first[0], "Bash");
    assert.match(first[1], /echo no > denied\.txt/);
    // The permission tool asked on a connection of its own.
    const ask = host.recorded.find((r) => r.request.op === "approval.ask");
    const runners = host.recorded.find((r) => r.request.op !== "approval.ask");
    assert.ok(ask !== undefined && runners !== undefined);
    assert.notEqual(ask.connection, runners.connection);
    const denial = shownTo(api.turns()[1])
      .flatMap((m) => m.blocks)
      .find((b) => b.type === "tool_result");
    assert.equal(denial?.is_error, true);
    assert.match(JSON.stringify(denial.content), /a person said no: not today/);
    assert.deepEqual(
      host
        .events()
        .filter((e) => e.type === "permission_denied")
        .map((e) => e.tool),
      ["Bash"],
    );
    assert.equal(result.head, result.base, "nothing was written, so nothing was committed");
  });

  test('approve "prompt": the host allows, and the tool runs', async (t) => {
    const api = await scriptedApi(t, [
      { kind: "tool_use", name: "Bash", input: { command: COMMIT } },
      { kind: "text", text: "Committed." },
    ]);
    const host = await fakeHost(t, {
      approve: () => Promise.resolve({ decision: "allow", reason: "policy: Bash" }),
    });
    const { run, result } = await runClaude(t, api, { host, settings: { approve: "prompt" } });
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(result.agentExitCode, 0);
    assert.equal(host.recorded.filter((r) => r.request.op === "approval.ask").length, 1);
    assert.equal(host.events().find((e) => e.type === "tool_result")?.ok, true);
    assert.equal(
      await git(run.repo, "log", "-1", "--format=%s", await fetchChanges(run, "allowed")),
      "Add hello",
    );
  });

  test('approve "prompt" without a channel is refused before the agent starts', async (t) => {
    const api = await scriptedApi(t, [{ kind: "text", text: "never" }]);
    const { run, result } = await runClaude(t, api, {
      settings: { approve: "prompt" },
      noHost: true,
    });
    assert.equal(run.exitCode, 1);
    assert.match(result.error ?? "", /approve is "prompt", but nothing in this sandbox can ask/);
    assert.equal(result.agentExitCode, undefined);
    assert.equal(api.turns().length, 0);
  });

  test("SIGTERM to the runner mid-tool: the result has a made-up agentResult, and the host hears it", async (t) => {
    const api = await scriptedApi(t, [
      { kind: "tool_use", name: "Bash", input: { command: SLOW } },
      { kind: "text", text: "never reached" },
    ]);
    const host = await fakeHost(t);
    const { run, result } = await runClaude(t, api, {
      host,
      onStart: (child) => {
        void host
          .waitForEvent((e) => e.type === "tool_use")
          .then(
            () => child.kill("SIGTERM"),
            () => undefined,
          );
      },
    });
    assert.equal(run.exitCode, 1, run.stderr);
    assert.match(result.error ?? "", /stopped by SIGTERM/);
    assert.equal(result.agentExitCode, 143);
    assert.equal(result.agentResult?.made_up_by, "warden");
    assert.equal(result.agentResult.terminal_reason, "no_result_line");
    assert.deepEqual(host.events().at(-1), {
      type: "result",
      ok: false,
      message: "Claude Code was stopped (exit 143, SIGTERM) before it wrote a result",
    });
  });
});
