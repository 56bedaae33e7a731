// The decisions of the foreground allow/deny prompt, with a stand-in terminal input and the
// store played as the executor: which key means what, when a run may prompt at all, and `a`
// allowing a tool for the rest of the run. The prompt on a real pseudo-terminal is tested in
// test/e2e/approvalPrompt.test.ts.
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { mayPrompt, promptApprovals, promptKey } from "../../src/cli/approvalPrompt.js";
import { Tasks, type Attachment } from "../../src/store/index.js";
import { FakeInput, until } from "../support/fakeTerminal.js";

test("y allows, n denies, a allows the tool from now on, ? helps, Ctrl-C interrupts", () => {
  assert.deepEqual(promptKey("y"), { kind: "answer", decision: "allow", always: false });
  assert.deepEqual(promptKey("N"), { kind: "answer", decision: "deny", always: false });
  assert.deepEqual(promptKey("a"), { kind: "answer", decision: "allow", always: true });
  assert.deepEqual(promptKey("?"), { kind: "help" });
  assert.deepEqual(promptKey("\u0003"), { kind: "interrupt" });
  assert.deepEqual(promptKey("\r"), { kind: "none" }, "Enter alone answers nothing");
});

test("a run prompts only with a terminal on stdin and stderr, and never with --json or --quiet", () => {
  const tty = { isTTY: true };
  assert.equal(mayPrompt(tty, tty, {}), true);
  assert.equal(mayPrompt({}, tty, {}), false, "stdin from a pipe");
  assert.equal(mayPrompt(tty, { isTTY: false }, {}), false, "stderr to a file");
  assert.equal(mayPrompt(tty, tty, { json: true }), false);
  assert.equal(mayPrompt(tty, tty, { quiet: true }), false);
});

test("a allows this call and every later call of the same tool without asking; others still ask", async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "warden-prompt-"));
  try {
    const tasks = await Tasks.open({ dataDir, env: {} });
    const { id } = await tasks.create({ prompt: "prompt" });
    const run: Attachment = await tasks.attach(id);
    const said: string[] = [];
    const input = new FakeInput();
    const stop = new AbortController();
    const prompting = promptApprovals({
      tasks,
      id,
      input,
      say: (text) => said.push(text),
      signal: stop.signal,
    });
    // The executor's side: a request in the store and its event, as the approval desk makes them.
    const ask = async (tool: string, input: string): Promise<number> => {
      const request = await run.askApproval({ tool, input });
      run.appendEvent("approval_asked", { request: request.n, tool, summary: input });
      return request.n;
    };
    const decision = async (n: number) =>
      (await tasks.approvals(id)).find((r) => r.n === n)?.decision;

    await ask("Bash", "npm test");
    await until(() => said.some((s) => s.startsWith("request 1: allow Bash: npm test?")));
    assert.equal(input.raw, true, "raw mode while a question waits");
    input.type("a");
    await until(async () => (await decision(1)) === "allow");
    assert.equal(input.raw, false, "raw mode is off once it is answered");

    await ask("Bash", "npm run build");
    await until(async () => (await decision(2)) === "allow");
    assert.ok(
      !said.some((s) => s.startsWith("request 2: allow Bash")),
      "request 2 was never asked",
    );
    assert.match((await tasks.approvals(id))[1]?.reason ?? "", /Bash allowed for the rest/);

    await ask("Write", "/etc/hosts");
    await until(() => said.some((s) => s.startsWith("request 3: allow Write: /etc/hosts?")));
    input.type("xn");
    await until(async () => (await decision(3)) === "deny");

    stop.abort();
    await prompting;
    await run.finish({ state: "succeeded" });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
