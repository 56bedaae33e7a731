// The real Claude Code CLI as a warden task: inside the real bubblewrap sandbox, its API calls
// through warden's relay to a scripted Messages API on 127.0.0.1, its events over the channel
// into the task's events, its end read by its adapter. Only the host ever holds the real key.
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  agentEvent,
  claudeSuite,
  NO_CLAUDE_SYSTEM,
  REAL_KEY,
  runClaude,
  shownToModel,
  waitForEvent,
  warden,
} from "./claudeTasks.js";
import { git, idOf } from "./fixtures.js";

/** A Bash call that keeps the tool busy (Claude Code refuses a bare `sleep N`). */
const BUSY = { command: "for i in $(seq 1 600); do sleep 0.1; done; echo woke" };

describe("Claude Code as a warden task", { skip: NO_CLAUDE_SYSTEM }, () => {
  const suite = claudeSuite();
  const scripted = suite.scripted;

  async function view(id: string): Promise<Record<string, unknown>> {
    const show = await warden(suite.ws, suite.api, ["show", id, "--json"]);
    assert.equal(show.code, 0, show.stderr);
    return JSON.parse(show.stdout) as Record<string, unknown>;
  }

  test("a Bash call that commits: the task succeeds, fetch brings the commit, the transcript, turns and cost are kept, and the real key stays on the host", async () => {
    const server = await scripted([
      {
        kind: "tool_use",
        name: "Bash",
        text: "I will commit it.",
        input: {
          command:
            "echo hi > hi.txt && git add hi.txt && git commit -qm 'add hi' && " +
            `env | grep -c ${REAL_KEY.slice(-12)} ; env | grep '^ANTHROPIC_'`,
        },
      },
      { kind: "text", text: "Committed hi.txt." },
    ]);
    const run = await runClaude(suite.ws, server, "add hi.txt and commit it", ["--json"]);
    assert.equal(run.code, 0, run.stderr);
    const ended = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(ended.state, "succeeded");
    assert.equal(ended.summary, "Committed hi.txt.");
    assert.equal(ended.changes, true);
    const id = String(ended.id);

    const fetch = await warden(suite.ws, server, ["fetch", id, "--json"]);
    assert.equal(fetch.code, 0, fetch.stderr);
    const branch = (JSON.parse(fetch.stdout) as { branch: string }).branch;
    assert.equal(await git(suite.ws.repo, "show", `${branch}:hi.txt`), "hi");
    assert.equal(await git(suite.ws.repo, "log", "-1", "--format=%s", branch), "add hi");

    const transcript = await warden(suite.ws, server, ["logs", id, "--transcript"]);
    const lines = transcript.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { type: string });
    assert.equal(lines[0]?.type, "system", "the transcript is Claude Code's own stream");
    assert.equal(lines.at(-1)?.type, "result");

    const shown = await view(id);
    const agent = (shown.details as { agent: Record<string, unknown> }).agent;
    assert.equal(agent.turns, 2);
    assert.ok(typeof agent.costUSD === "number" && agent.costUSD > 0);
    assert.equal((shown.activity as { toolUses: number }).toolUses, 1);
    const text = await warden(suite.ws, server, ["show", id]);
    assert.match(text.stdout, /^agent: +2 turns, \$0\.\d{4}, .*1 tool call/m);
    const watch = await warden(suite.ws, server, ["watch", id]);
    assert.match(watch.stdout, /agent: uses Bash: echo hi > hi.txt/);
    assert.match(watch.stdout, /agent: result: ok, 2 turns, \$/);

    // The key: the API got the real one on every request and never the placeholder; inside,
    // the agent's environment had only the placeholder, and nothing it sent held the real key.
    const turns = server.turns();
    assert.equal(turns.length, 2);
    for (const request of server.requests) {
      assert.equal(request.headers["x-api-key"], REAL_KEY);
      assert.equal(request.headers.authorization, undefined);
      assert.doesNotMatch(JSON.stringify(request.body), new RegExp(REAL_KEY));
    }
    const toolOutput = shownToModel(turns[1]?.body);
    assert.match(toolOutput, /ANTHROPIC_API_KEY=sk-ant-warden-placeholder-[0-9a-f]+/);
    assert.match(toolOutput, /ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:3129/);
    assert.match(toolOutput, /\b0\\n/, "grep counted no line with the real key");
    assert.doesNotMatch(transcript.stdout, new RegExp(REAL_KEY));
  });

  test("max turns ends the task failed, stopped by turns; wait exits 3", async () => {
    const server = await scripted([
      { kind: "tool_use", name: "Bash", input: { command: "true" } },
      { kind: "tool_use", name: "Bash", input: { command: "true" } },
      { kind: "text", text: "never reached" },
    ]);
    const run = await runClaude(suite.ws, server, "loop", ["--max-turns", "1", "--json"]);
    assert.equal(run.code, 3, run.stderr);
    const ended = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(ended.state, "failed");
    assert.equal(ended.stoppedBy, "turns");
    assert.match(String(ended.error), /turn limit: Reached maximum number of turns \(1\)/);
    const wait = await warden(suite.ws, server, ["wait", String(ended.id)]);
    assert.equal(wait.code, 3);
  });

  test("max budget ends the task failed, stopped by budget; wait exits 3", async () => {
    const server = await scripted([
      {
        kind: "tool_use",
        name: "Bash",
        input: { command: "true" },
        usage: { inputTokens: 1_000_000, outputTokens: 100 },
      },
      { kind: "text", text: "never reached" },
    ]);
    const run = await runClaude(suite.ws, server, "spend", ["--max-budget-usd", "0.01", "--json"]);
    assert.equal(run.code, 3, run.stderr);
    const ended = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(ended.stoppedBy, "budget");
    assert.match(String(ended.error), /maximum budget \(\$0\.01\)/);
    const wait = await warden(suite.ws, server, ["wait", String(ended.id)]);
    assert.equal(wait.code, 3);
    assert.equal(server.turns().length, 1);
  });

  test("an API 400 ends the task failed with the API's message, cleaned", async () => {
    const server = await scripted([
      {
        kind: "error",
        status: 400,
        type: "invalid_request_error",
        message: "bad thing \u001b[31mred\u202e bell\u0007 c1\u009b zw\u200b end",
        times: Infinity,
      },
    ]);
    const run = await runClaude(suite.ws, server, "fail", ["--json"]);
    assert.equal(run.code, 1, run.stderr);
    const ended = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.equal(ended.state, "failed");
    assert.equal(ended.stoppedBy, null);
    const error = String(ended.error);
    assert.match(error, /^the agent exited with code 1: API Error: 400 bad thing .*red.* end$/);
    // Claude Code drops some of these itself; warden's cleaning takes whatever is left.
    // eslint-disable-next-line no-control-regex -- matching control characters is the point.
    assert.doesNotMatch(error, /[\u0000-\u001f\u007f-\u009f\u200b\u202e]/);
    const text = await warden(suite.ws, server, ["show", String(ended.id)]);
    assert.match(text.stdout, /^error: +the agent exited with code 1: API Error: 400 bad thing/m);
  });

  test("an API 500 is retried, then ends the task failed with the API's message", async () => {
    const server = await scripted([
      { kind: "error", status: 500, type: "api_error", message: "server broke", times: Infinity },
    ]);
    const run = await runClaude(suite.ws, server, "fail", ["--json"]);
    assert.equal(run.code, 1, run.stderr);
    const ended = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.match(String(ended.error), /API Error: 500 server broke/);
    assert.equal(server.turns().length, 3, "the first try and CLAUDE_CODE_MAX_RETRIES=2 retries");
    const watch = await warden(suite.ws, server, ["watch", String(ended.id)]);
    assert.match(watch.stdout, /agent: API retry 1 \(HTTP 500\)/);
    assert.match(watch.stdout, /agent: API retry 2 \(HTTP 500\)/);
  });

  test("cancel mid-turn: the agent gets SIGTERM, the runner makes up its result, the task is cancelled", async () => {
    const server = await scripted([
      { kind: "tool_use", name: "Bash", input: BUSY },
      { kind: "text", text: "never reached" },
    ]);
    const run = await runClaude(suite.ws, server, "be busy", ["--detach"]);
    assert.equal(run.code, 0, run.stderr);
    const id = idOf(run);
    await waitForEvent(suite.ws, id, agentEvent("tool_use"));
    const started = Date.now();
    const cancel = await warden(suite.ws, server, ["cancel", id]);
    assert.equal(cancel.code, 0, cancel.stderr);
    const wait = await warden(suite.ws, server, ["wait", id, "--timeout", "60s", "--json"]);
    assert.equal(wait.code, 1, wait.stderr);
    assert.equal((JSON.parse(wait.stdout) as { state: string }).state, "cancelled");
    assert.ok(Date.now() - started < 30_000, "the cancel took effect within the grace");
    const result = JSON.parse(
      await readFile(join(suite.ws.dataDir, "tasks", id, "results", "result.json"), "utf8"),
    ) as { agentExitCode: number; agentResult: Record<string, unknown> };
    assert.equal(result.agentExitCode, 143, "Claude Code ended by SIGTERM");
    assert.equal(result.agentResult.made_up_by, "warden");
    const shown = await view(id);
    assert.equal((shown.details as { agent: { madeUp: boolean } }).agent.madeUp, true);
  });

  test("send during a multi-turn task: the model gets the message as its next user turn, and send --await prints the reply", async () => {
    const server = await scripted([
      {
        kind: "tool_use",
        name: "Bash",
        input: { command: "for i in $(seq 1 40); do sleep 0.1; done; echo step one" },
      },
      { kind: "text", text: "Step one is done." },
      { kind: "text", text: "Banana \u001b[1mbold\u001b[0m: here is your answer." },
    ]);
    const run = await runClaude(suite.ws, server, "do step one", ["--detach"]);
    assert.equal(run.code, 0, run.stderr);
    const id = idOf(run);
    await waitForEvent(suite.ws, id, agentEvent("tool_use"));
    const send = await warden(suite.ws, server, [
      "send",
      id,
      "also say banana",
      "--await",
      "--timeout",
      "60s",
    ]);
    assert.equal(send.code, 0, send.stderr);
    assert.equal(send.stdout, "Banana ?[1mbold?[0m: here is your answer.\n", "the reply, cleaned");
    const turns = server.turns();
    assert.equal(turns.length, 3);
    const messages = (turns[2]?.body as { messages: { role: string; content: unknown }[] })
      .messages;
    const last = messages.at(-1);
    assert.equal(last?.role, "user");
    assert.match(JSON.stringify(last.content), /also say banana/);
    const wait = await warden(suite.ws, server, ["wait", id, "--timeout", "60s", "--json"]);
    assert.equal(wait.code, 0, wait.stderr);
    const inbox = JSON.parse(
      await readFile(join(suite.ws.dataDir, "tasks", id, "inbox.json"), "utf8"),
    ) as { messages: { state: string; reply: string }[] };
    const [message] = inbox.messages;
    assert.equal(message?.state, "delivered");
    assert.match(message.reply, /^Banana/);
  });

  /** Polls `warden approvals --pending` until a request waits. */
  async function pendingApproval(id: string): Promise<Record<string, unknown>> {
    for (let i = 0; i < 300; i++) {
      const list = await warden(suite.ws, suite.api, ["approvals", id, "--pending", "--json"]);
      const pending = JSON.parse(list.stdout) as Record<string, unknown>[];
      if (pending[0] !== undefined) return pending[0];
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error("no approval request came");
  }

  test("approve prompt: the tool call waits, `warden approve ... deny` denies it, and the model sees the denial", async () => {
    const server = await scripted([
      { kind: "tool_use", name: "Bash", input: { command: "echo yes > approved.txt" } },
      { kind: "text", text: "Understood, I will not." },
    ]);
    const run = await runClaude(suite.ws, server, "write approved.txt", [
      "--approve",
      "prompt",
      "--detach",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const id = idOf(run);
    const request = await pendingApproval(id);
    assert.equal(request.tool, "Bash");
    assert.equal(request.input, "echo yes > approved.txt");
    assert.equal(server.turns().length, 1, "the model waits for the answer");
    const approve = await warden(suite.ws, server, [
      "approve",
      id,
      String(request.n),
      "deny",
      "--reason",
      "not today",
    ]);
    assert.equal(approve.code, 0, approve.stderr);
    const wait = await warden(suite.ws, server, ["wait", id, "--timeout", "60s", "--json"]);
    assert.equal(wait.code, 0, wait.stderr);
    const ended = JSON.parse(wait.stdout) as Record<string, unknown>;
    assert.equal(ended.changes, false, "the denied call wrote nothing");
    assert.match(shownToModel(server.turns()[1]?.body), /denied by a person: not today/);
    const watch = await warden(suite.ws, server, ["watch", id]);
    assert.match(watch.stdout, /approval 1 asked: Bash: echo yes > approved.txt/);
    assert.match(watch.stdout, /approval 1 denied by person/);
  });

  test("approve prompt with nobody answering: the call is denied at the task's timeout", async () => {
    const server = await scripted([
      { kind: "tool_use", name: "Write", input: { file_path: "/workspace/x.txt", content: "x" } },
      { kind: "text", text: "Nobody answered, so I stopped." },
    ]);
    const started = Date.now();
    const run = await runClaude(suite.ws, server, "write x.txt", [
      "--approve",
      "prompt",
      "--approve-timeout",
      "2s",
      "--json",
    ]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(Date.now() - started >= 2000);
    const id = (JSON.parse(run.stdout) as { id: string }).id;
    assert.match(shownToModel(server.turns()[1]?.body), /nobody answered within 2 s/);
    const list = await warden(suite.ws, server, ["approvals", id, "--json"]);
    const [request] = JSON.parse(list.stdout) as Record<string, unknown>[];
    assert.equal(request?.answeredBy, "timeout");
    assert.equal(request.decision, "deny");
  });
});
