// The claude adapter against the real Claude Code CLI (the pinned dev dependency), talking to
// a scripted Messages API on 127.0.0.1. Run directly, not yet inside warden's sandbox.
import { strict as assert } from "node:assert";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AgentEvent } from "../../src/agents/index.js";
import { git } from "../support/share.js";
import { skipWhen } from "../support/skipWhen.js";
import {
  PLACEHOLDER_KEY,
  claudeUnavailable,
  startClaude,
  testPermissionTool,
  type ClaudeRunOptions,
} from "../support/claudeRun.js";
import {
  startScriptedAnthropic,
  type RecordedRequest,
  type ScriptedTurn,
} from "../support/scriptedAnthropic.js";

const skip = skipWhen(claudeUnavailable());

let scratch = "";
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "warden-claude-real-"));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

/** A fresh git repository with one commit, as the runner's workspace would be. */
async function workspace(name: string): Promise<string> {
  const dir = join(scratch, name);
  await git(scratch, "init", "-q", "-b", "main", dir);
  await git(dir, "config", "user.name", "warden");
  await git(dir, "config", "user.email", "warden@localhost");
  await git(dir, "commit", "-q", "--allow-empty", "-m", "start");
  return dir;
}

/** Runs one scripted conversation to its end with stdin closed after the prompt. */
async function runOnce(
  name: string,
  script: readonly ScriptedTurn[],
  options: Omit<ClaudeRunOptions, "apiUrl" | "cwd" | "prompt"> = {},
) {
  const api = await startScriptedAnthropic(script);
  try {
    const cwd = await workspace(name);
    const run = await startClaude({ ...options, apiUrl: api.url, cwd, prompt: "do the task" });
    run.closeStdin();
    const exit = await run.exited;
    return { api, cwd, run, exit };
  } finally {
    await api.close();
  }
}

function ofType<T extends AgentEvent["type"]>(events: readonly AgentEvent[], type: T) {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** The messages the model was shown in one request. */
function messagesOf(request: RecordedRequest | undefined): { role: string; content: unknown }[] {
  const body = request?.body as { messages?: { role: string; content: unknown }[] } | undefined;
  return body?.messages ?? [];
}

function blocks(content: unknown): Record<string, unknown>[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? (content as Record<string, unknown>[]) : [];
}

const COMMIT = "echo hello > hello.txt && git add hello.txt && git commit -q -m 'Add hello'";

/**
 * A command that runs for half a minute. A standalone `sleep` will not do: Claude Code blocks
 * it and answers the model with an error instead.
 */
const SLOW = "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do echo $i; sleep 2; done";

describe("the claude adapter with the real Claude Code CLI", { skip }, () => {
  test("a Bash call that writes and commits a file: the run succeeds and the model saw the result", async () => {
    const { api, cwd, run, exit } = await runOnce("commit", [
      { kind: "tool_use", name: "Bash", input: { command: COMMIT }, text: "I will commit." },
      { kind: "text", text: "Committed hello.txt." },
    ]);
    assert.equal(exit.exitCode, 0, exit.stderr);
    assert.equal(await readFile(join(cwd, "hello.txt"), "utf8"), "hello\n");
    assert.equal(await git(cwd, "log", "-1", "--format=%s"), "Add hello");

    const [use] = ofType(run.events, "tool_use");
    assert.equal(use?.name, "Bash");
    assert.equal(use.summary, COMMIT);
    assert.deepEqual(
      ofType(run.events, "tool_result").map((r) => [r.id, r.ok]),
      [[use.id, true]],
    );
    const [usage] = ofType(run.events, "usage");
    assert.ok(usage !== undefined && usage.inputTokens > 0 && (usage.costUSD ?? 0) > 0);
    assert.deepEqual(exit.outcome.result, {
      type: "result",
      ok: true,
      turns: 2,
      costUSD: usage.costUSD,
      message: "Committed hello.txt.",
    });
    assert.equal(exit.outcome.synthesized, false);

    // The second request carries the tool's result back to the model.
    const second = messagesOf(api.turns()[1]);
    const results = second
      .flatMap((m) => blocks(m.content))
      .filter((b) => b.type === "tool_result");
    assert.equal(results.length, 1);
    assert.equal(results[0]?.tool_use_id, use.id);
    assert.notEqual(results[0]?.is_error, true);
  });

  test("the scripted API received the placeholder key from the environment and no other credential", async () => {
    const { api, exit } = await runOnce("key", [{ kind: "text", text: "Hi." }]);
    assert.equal(exit.exitCode, 0, exit.stderr);
    assert.ok(api.requests.length > 0);
    for (const request of api.requests) {
      assert.equal(request.headers["x-api-key"], PLACEHOLDER_KEY);
      assert.equal(request.headers.authorization, undefined);
      assert.equal(request.headers["proxy-authorization"], undefined);
    }
    assert.deepEqual(
      api.requests.filter((r) => r.kind === "unknown").map((r) => `${r.method} ${r.path}`),
      [],
    );
  });

  test("max turns end the run with stoppedBy turns", async () => {
    const { exit } = await runOnce(
      "turns",
      [
        { kind: "tool_use", name: "Bash", input: { command: "true" } },
        { kind: "tool_use", name: "Bash", input: { command: "true" } },
        { kind: "text", text: "never reached" },
      ],
      { settings: { maxTurns: 1 } },
    );
    assert.equal(exit.exitCode, 1);
    assert.equal(exit.outcome.result.ok, false);
    assert.equal(exit.outcome.result.stoppedBy, "turns");
    assert.match(exit.outcome.result.message ?? "", /maximum number of turns \(1\)/);
  });

  test("max budget ends the run with stoppedBy budget once the usage costs more", async () => {
    const { api, exit } = await runOnce(
      "budget",
      [
        {
          kind: "tool_use",
          name: "Bash",
          input: { command: "true" },
          usage: { inputTokens: 1_000_000, outputTokens: 100 },
        },
        { kind: "text", text: "never reached" },
      ],
      { settings: { maxBudgetUSD: 0.01 } },
    );
    assert.equal(exit.exitCode, 1);
    assert.equal(exit.outcome.result.stoppedBy, "budget");
    assert.ok((exit.outcome.result.costUSD ?? 0) > 0.01);
    assert.match(exit.outcome.result.message ?? "", /maximum budget \(\$0\.01\)/);
    assert.equal(api.turns().length, 1);
  });

  test("an API 400 ends the run as a failure with the API's message and no retry", async () => {
    const { run, exit } = await runOnce("400", [
      {
        kind: "error",
        status: 400,
        type: "invalid_request_error",
        message: "bad thing",
        times: Infinity,
      },
    ]);
    assert.equal(exit.exitCode, 1);
    assert.equal(ofType(run.events, "retry").length, 0);
    assert.deepEqual(exit.outcome.result, {
      type: "result",
      ok: false,
      turns: 1,
      costUSD: 0,
      message: "API Error: 400 bad thing",
    });
  });

  test("an API 500 is retried, each retry is read, then the run fails with the API's message", async () => {
    const { api, run, exit } = await runOnce(
      "500",
      [{ kind: "error", status: 500, type: "api_error", message: "server broke", times: Infinity }],
      { settings: { env: { CLAUDE_CODE_MAX_RETRIES: "2" } } },
    );
    assert.equal(exit.exitCode, 1);
    assert.deepEqual(
      ofType(run.events, "retry").map((r) => [r.attempt, r.status]),
      [
        [1, 500],
        [2, 500],
      ],
    );
    assert.equal(api.turns().length, 3);
    assert.equal(exit.outcome.result.ok, false);
    assert.match(exit.outcome.result.message ?? "", /^API Error: 500 server broke/);
  });

  test("a second user message after the first result is the model's next user turn, and its reply comes back", async () => {
    const api = await startScriptedAnthropic([
      { kind: "text", text: "First answer." },
      { kind: "text", text: "Second answer." },
    ]);
    try {
      const run = await startClaude({
        apiUrl: api.url,
        cwd: await workspace("second"),
        prompt: "first question",
      });
      await run.waitForEvent((e) => e.type === "result");
      run.send("and a second question");
      await run.waitForEvent((e) => e.type === "result" && e.message === "Second answer.");
      run.closeStdin();
      const exit = await run.exited;
      assert.equal(exit.exitCode, 0, exit.stderr);
      assert.deepEqual(
        ofType(run.events, "result").map((r) => [r.ok, r.message]),
        [
          [true, "First answer."],
          [true, "Second answer."],
        ],
      );
      const shown = messagesOf(api.turns()[1]).filter((m) => m.role !== "system");
      const last = shown.at(-1);
      assert.equal(last?.role, "user");
      assert.ok(blocks(last.content).some((b) => b.text === "and a second question"));
      const before = shown.at(-2);
      assert.equal(before?.role, "assistant");
      assert.ok(blocks(before.content).some((b) => b.text === "First answer."));
      assert.equal(exit.outcome.result.message, "Second answer.");
    } finally {
      await api.close();
    }
  });

  test("SIGTERM mid-turn: exit 143, no result line, and the made-up result says so", async () => {
    const api = await startScriptedAnthropic([
      { kind: "tool_use", name: "Bash", input: { command: SLOW } },
      { kind: "text", text: "never reached" },
    ]);
    try {
      const run = await startClaude({
        apiUrl: api.url,
        cwd: await workspace("sigterm"),
        prompt: "wait a minute",
      });
      await run.waitForEvent((e) => e.type === "tool_use");
      run.kill("SIGTERM");
      const exit = await run.exited;
      assert.equal(exit.exitCode, 143);
      assert.equal(ofType(run.events, "result").length, 0);
      assert.notEqual(exit.lastLine?.type, "result");
      assert.equal(exit.outcome.synthesized, true);
      assert.deepEqual(exit.outcome.result, {
        type: "result",
        ok: false,
        message: "Claude Code was stopped (exit 143, SIGTERM) before it wrote a result",
      });
      assert.equal(exit.outcome.agentResult?.made_up_by, "warden");
      const started = ofType(run.events, "turn_started").length;
      assert.equal(ofType(run.events, "turn_ended").length, started);
    } finally {
      await api.close();
    }
  });

  test("SIGTERM while it waits for the next message, after a good result, is not a success", async () => {
    const api = await startScriptedAnthropic([{ kind: "text", text: "Done." }]);
    try {
      const run = await startClaude({
        apiUrl: api.url,
        cwd: await workspace("idle"),
        prompt: "one question",
      });
      await run.waitForEvent((e) => e.type === "result");
      run.kill("SIGTERM");
      const exit = await run.exited;
      assert.equal(exit.exitCode, 143);
      assert.equal(exit.lastLine?.type, "result");
      assert.equal(exit.outcome.synthesized, false);
      assert.equal(exit.outcome.result.ok, false);
      assert.match(exit.outcome.result.message ?? "", /stopped after its last result/);
    } finally {
      await api.close();
    }
  });

  test('approve "prompt" asks the permission prompt tool, and a denial reaches the model', async () => {
    const { api, cwd, run, exit } = await runOnce(
      "prompt-deny",
      [
        { kind: "tool_use", name: "Bash", input: { command: "echo no > denied.txt" } },
        { kind: "text", text: "It was denied." },
      ],
      { settings: { approve: "prompt" }, permissionPromptTool: testPermissionTool("deny") },
    );
    assert.equal(exit.exitCode, 0, exit.stderr);
    await assert.rejects(readFile(join(cwd, "denied.txt")));
    assert.deepEqual(
      ofType(run.events, "permission_denied").map((d) => [d.tool, d.summary]),
      [["Bash", "echo no > denied.txt"]],
    );
    const shown = messagesOf(api.turns()[1]).flatMap((m) => blocks(m.content));
    const denial = shown.find((b) => b.type === "tool_result");
    assert.equal(denial?.is_error, true);
    assert.match(JSON.stringify(denial.content), /denied by policy/);
  });

  test('approve "prompt" runs the tool call the permission prompt tool allows', async () => {
    const { cwd, run, exit } = await runOnce(
      "prompt-allow",
      [
        { kind: "tool_use", name: "Bash", input: { command: "echo yes > allowed.txt" } },
        { kind: "text", text: "Written." },
      ],
      { settings: { approve: "prompt" }, permissionPromptTool: testPermissionTool("allow") },
    );
    assert.equal(exit.exitCode, 0, exit.stderr);
    assert.equal(await readFile(join(cwd, "allowed.txt"), "utf8"), "yes\n");
    assert.equal(ofType(run.events, "permission_denied").length, 0);
  });

  test('approve "never" denies what no rule allows, and the model is told', async () => {
    const { cwd, run, exit } = await runOnce(
      "never",
      [
        { kind: "tool_use", name: "Bash", input: { command: "echo no > never.txt" } },
        { kind: "tool_use", name: "Bash", input: { command: "echo yes" } },
        { kind: "text", text: "Done." },
      ],
      { settings: { approve: "never", allowedTools: ["Bash(echo yes)"] } },
    );
    assert.equal(exit.exitCode, 0, exit.stderr);
    await assert.rejects(readFile(join(cwd, "never.txt")));
    assert.deepEqual(
      ofType(run.events, "tool_result").map((r) => r.ok),
      [false, true],
    );
    assert.equal(ofType(run.events, "tool_result")[1]?.summary, "yes");
    assert.equal(ofType(run.events, "permission_denied").length, 1);
  });

  test("a disallowed tool is refused even when every call is approved", async () => {
    const { cwd, run, exit } = await runOnce(
      "disallowed",
      [
        { kind: "tool_use", name: "Bash", input: { command: "echo no > out.txt" } },
        { kind: "text", text: "Done." },
      ],
      { settings: { disallowedTools: ["Bash"] } },
    );
    assert.equal(exit.exitCode, 0, exit.stderr);
    await assert.rejects(readFile(join(cwd, "out.txt")));
    assert.equal(ofType(run.events, "tool_result")[0]?.ok, false);
  });

  test("SIGTERM while the model's answer streams: exit 143 and a made-up result", async () => {
    const api = await startScriptedAnthropic([{ kind: "slow", text: "Thinking about it..." }]);
    try {
      const run = await startClaude({
        apiUrl: api.url,
        cwd: await workspace("slow"),
        prompt: "take your time",
      });
      await api.waitFor((r) => r.kind === "turn");
      run.kill("SIGTERM");
      const exit = await run.exited;
      assert.equal(exit.exitCode, 143);
      assert.equal(exit.outcome.synthesized, true);
      assert.equal(exit.outcome.result.ok, false);
    } finally {
      await api.close();
    }
  });
});
