// Talking to a running task from the command line: `send --await`, `approvals`, `approve`, and
// the agent's events as `watch` and `show` print them. The test plays the executor itself with
// the store, so no sandbox is needed; every text it plants is hostile.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { Tasks, type Attachment } from "../../src/store/index.js";
import { describeCli } from "../support/cliSuite.js";
import { collect, runCli, startCli } from "../e2e/fixtures.js";

describeCli("talking to a running task", (ws) => {
  let tasks: Tasks;
  before(async () => {
    tasks = await Tasks.open({ dataDir: ws.dataDir, env: {} });
  });

  async function running(): Promise<{ id: string; run: Attachment }> {
    const { id } = await tasks.create({ prompt: "talk" });
    return { id, run: await tasks.attach(id) };
  }

  test("send --await prints the reply, cleaned, once the agent answers", async () => {
    const { id, run } = await running();
    const send = startCli(ws.dataDir, ["send", id, "what", "now?", "--await", "--timeout", "30s"]);
    const result = collect(send);
    let taken = await run.takeNextMessage();
    for (let i = 0; taken === undefined && i < 300; i++) {
      await new Promise((r) => setTimeout(r, 20));
      taken = await run.takeNextMessage();
    }
    assert.equal(taken?.body, "what now?");
    await run.deliver(1, "line one\n\u001b[2Jline two\u202e");
    const done = await result;
    assert.equal(done.code, 0, done.stderr);
    assert.equal(done.stdout, "line one\n?[2Jline two?\n");
    await run.finish({ state: "succeeded" });
  });

  test("send --await exits 3 at its timeout and 1 when the task ends without answering", async () => {
    const { id, run } = await running();
    const late = await runCli(ws.dataDir, ["send", id, "hello", "--await", "--timeout", "1s"]);
    assert.equal(late.code, 3, late.stderr);
    assert.match(
      late.stderr,
      /^warden: no reply to message 1 of task .* \(it is pending\)\nhint: /m,
    );
    const send = startCli(ws.dataDir, ["send", id, "again", "--await", "--json"]);
    const result = collect(send);
    for (let i = 0; (await tasks.messages(id)).length < 2 && i < 300; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    await run.finish({ state: "failed", error: "gave up" });
    const ended = await result;
    assert.equal(ended.code, 1, ended.stderr);
    assert.equal((JSON.parse(ended.stdout) as { taskState: string }).taskState, "failed");
  });

  test("approvals lists the prompts, approve answers one, and a second answer is refused", async () => {
    const { id, run } = await running();
    await run.askApproval({ tool: "Bash\u001b]0;pwned\u0007", input: "rm -rf /\u202e" });
    const list = await runCli(ws.dataDir, ["approvals", id]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^ {2}1 {2}pending +Bash\?\]0;pwned\?: rm -rf \/\?$/m);
    assert.match(list.stdout, new RegExp(`warden approve ${id.slice(0, 8)} N allow\\|deny`));
    const show = await runCli(ws.dataDir, ["show", id]);
    assert.match(show.stdout, /^approvals: +1 waiting, 0 answered/m);
    const yes = await runCli(ws.dataDir, [
      "approve",
      id.slice(0, 8),
      "1",
      "allow",
      "--reason",
      "ok",
    ]);
    assert.equal(yes.code, 0, yes.stderr);
    assert.equal((await run.awaitApproval(1, { timeoutMs: 1000 })).decision, "allow");
    const again = await runCli(ws.dataDir, ["approve", id, "1", "deny"]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already answered: allow by a person/);
    const missing = await runCli(ws.dataDir, ["approve", id, "7", "deny"]);
    assert.equal(missing.code, 2);
    const json = await runCli(ws.dataDir, ["approvals", id, "--json"]);
    const [request] = JSON.parse(json.stdout) as Record<string, unknown>[];
    assert.equal(request?.tool, "Bash\u001b]0;pwned\u0007", "--json is raw");
    await run.finish({ state: "succeeded" });
  });

  test("watch and show print the agent's events readably and cleaned; watch --json prints them raw", async () => {
    const { id, run } = await running();
    const agent = (kind: string, fields: Record<string, unknown>) =>
      run.appendEvent("agent", { kind, ...fields });
    agent("session", { sessionId: "s-1", model: "claude-opus-5-5" });
    agent("turn_started", { turn: 1 });
    agent("assistant_text", { text: "I will \u001b[31mfix\u001b[0m it\nnow", cut: false });
    agent("tool_use", { id: "t1", name: "Bash", summary: "git commit -m x" });
    agent("tool_result", { id: "t1", ok: false, summary: "exit 1\u0007" });
    agent("retry", { attempt: 1, status: 529, message: "overloaded" });
    agent("permission_denied", { tool: "Write", summary: "/etc/passwd" });
    agent("usage", { inputTokens: 1200, outputTokens: 80, costUSD: 0.0123 });
    agent("result", { ok: true, turns: 1, costUSD: 0.0123, message: "done" });
    run.appendEvent("approval_answered", {
      tool: "Write",
      summary: "/etc/passwd",
      decision: "deny",
      by: "rule",
      reason: "denied by Write",
    });
    await run.finish({ state: "succeeded", summary: "done" });

    const watch = await runCli(ws.dataDir, ["watch", id]);
    assert.equal(watch.code, 0, watch.stderr);
    const lines = watch.stdout.split("\n").map((l) => l.replace(/^\d\d:\d\d:\d\d /, ""));
    for (const expected of [
      "agent: session s-1, model claude-opus-5-5",
      "agent: turn 1",
      "agent: says: I will ?[31mfix?[0m it | now",
      "agent: uses Bash: git commit -m x",
      "agent: tool error: exit 1?",
      "agent: API retry 1 (HTTP 529): overloaded",
      "agent: permission denied: Write: /etc/passwd",
      "agent: usage: 1200 tokens in, 80 out, $0.0123 so far",
      "agent: result: ok, 1 turn, $0.0123: done",
      "approval_answered: approval denied by rule: Write: /etc/passwd (denied by Write)",
    ]) {
      assert.ok(lines.includes(expected), `watch prints ${expected}\n${watch.stdout}`);
    }
    const raw = await runCli(ws.dataDir, ["watch", id, "--json"]);
    const said = raw.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((e) => e.kind === "assistant_text");
    assert.equal(said?.text, "I will \u001b[31mfix\u001b[0m it\nnow");

    const show = await runCli(ws.dataDir, ["show", id]);
    assert.match(
      show.stdout,
      /^agent: +1 turn, \$0\.0123, 1200 tokens in, 80 out, 1 tool call, 1 failed, 1 API retries, 1 denied$/m,
    );
    assert.match(show.stdout, /^recent:\n( {2}\d\d:\d\d:\d\d .*\n){8}/m);
    const shown = JSON.parse((await runCli(ws.dataDir, ["show", id, "--json"])).stdout) as {
      activity: Record<string, unknown>;
    };
    assert.equal(shown.activity.toolUses, 1);
    assert.deepEqual(shown.activity.usage, {
      inputTokens: 1200,
      outputTokens: 80,
      costUSD: 0.0123,
    });
  });
});
