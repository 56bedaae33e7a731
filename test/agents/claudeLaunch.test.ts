import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { BadSettingsError, checkSettings, type Settings } from "../../src/protocol/index.js";
import { adapterFor } from "../../src/agents/index.js";
import { CLAUDE_ENV, claudeLaunch } from "../../src/agents/claude/launch.js";
import { userMessageLine } from "../../src/agents/claude/input.js";

/** Print mode, reading and writing stream-json: the options every launch starts with. */
const STREAM_ARGS =
  "--print --output-format stream-json --verbose --input-format stream-json".split(" ");

function launch(settings: Omit<Settings, "agent">, prompt = "do it") {
  return claudeLaunch({ settings: checkSettings({ agent: "claude", ...settings }), prompt });
}

describe("launching Claude Code", () => {
  test("the smallest task runs claude from PATH in print mode, bypassing permission prompts", () => {
    const plan = launch({});
    assert.deepEqual(plan.argv, [
      "claude",
      ...STREAM_ARGS,
      "--permission-mode",
      "bypassPermissions",
      "--strict-mcp-config",
    ]);
  });

  test("each bound workspace is a directory Claude Code may work in, one --add-dir each", () => {
    const plan = claudeLaunch({
      settings: checkSettings({ agent: "claude" }),
      prompt: "do it",
      addDirs: ["/workspace/lib", "/workspace/docs"],
    });
    assert.deepEqual(
      plan.argv.filter((arg) => arg.startsWith("--add-dir")),
      ["--add-dir=/workspace/lib", "--add-dir=/workspace/docs"],
    );
  });

  test("every setting becomes its option, each value inside its own argument", () => {
    const plan = launch({
      model: "claude-opus-5-5",
      maxTurns: 7,
      maxBudgetUSD: 0.25,
      allowedTools: ["Read", "Bash(git commit -m *)"],
      disallowedTools: ["WebSearch"],
      appendSystemPrompt: "- always run the tests\n- never push",
      agentProgram: "/opt/agents/claude",
    });
    assert.deepEqual(plan.argv, [
      "/opt/agents/claude",
      ...STREAM_ARGS,
      "--permission-mode",
      "bypassPermissions",
      "--model=claude-opus-5-5",
      "--max-turns=7",
      "--max-budget-usd=0.25",
      "--allowedTools=Read",
      "--allowedTools=Bash(git commit -m *)",
      "--disallowedTools=WebSearch",
      "--append-system-prompt=- always run the tests\n- never push",
      "--strict-mcp-config",
    ]);
  });

  test("zero turns and a zero budget mean Claude Code's own default: no option at all", () => {
    const plan = launch({ maxTurns: 0, maxBudgetUSD: 0 });
    assert.ok(!plan.argv.some((a) => a.startsWith("--max-")));
  });

  test('approve "never" runs in dontAsk mode, where whatever would ask is denied', () => {
    const plan = launch({ approve: "never", allowedTools: ["Bash(npm test)"] });
    assert.deepEqual(plan.argv.slice(STREAM_ARGS.length + 1, STREAM_ARGS.length + 3), [
      "--permission-mode",
      "dontAsk",
    ]);
  });

  test('approve "prompt" with no way to ask is refused before anything starts', () => {
    assert.throws(
      () => launch({ approve: "prompt" }),
      (error: unknown) =>
        error instanceof BadSettingsError && /nothing in this sandbox can ask/.test(error.message),
    );
  });

  test('approve "prompt" uses the permission prompt tool the runner offers', () => {
    const plan = claudeLaunch({
      settings: checkSettings({ agent: "claude", approve: "prompt" }),
      prompt: "x",
      permissionPromptTool: { mcpConfig: '{"mcpServers":{}}', tool: "mcp__warden__approve" },
    });
    assert.deepEqual(plan.argv.slice(STREAM_ARGS.length + 1), [
      "--permission-mode",
      "default",
      "--permission-prompt-tool=mcp__warden__approve",
      '--mcp-config={"mcpServers":{}}',
      "--strict-mcp-config",
    ]);
  });

  test("the environment keeps Claude Code quiet and bounded, and holds no secret", () => {
    const { env } = launch({});
    assert.equal(env, CLAUDE_ENV);
    assert.deepEqual(Object.keys(env).sort(), [
      "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
      "CLAUDE_CODE_MAX_RETRIES",
      "DISABLE_AUTOUPDATER",
      "DISABLE_ERROR_REPORTING",
      "DISABLE_TELEMETRY",
      "IS_SANDBOX",
    ]);
    assert.ok(Number(env.CLAUDE_CODE_MAX_RETRIES) > 0 && Number(env.CLAUDE_CODE_MAX_RETRIES) <= 10);
    assert.ok(!Object.keys(env).some((name) => /KEY|TOKEN|BASE_URL/.test(name)));
  });

  test("the prompt goes on stdin as one stream-json user message line", () => {
    const { stdin } = launch({}, "fix the bug\nin main.ts");
    assert.equal(stdin, userMessageLine("fix the bug\nin main.ts"));
    assert.equal(stdin.indexOf("\n"), stdin.length - 1);
    assert.deepEqual(JSON.parse(stdin), {
      type: "user",
      message: { role: "user", content: "fix the bug\nin main.ts" },
    });
  });

  test("a message line escapes every line separator, so it stays one line", () => {
    const text = "a\r\nb\u2028c\u2029d\u0085e";
    const line = userMessageLine(text);
    assert.equal(line.split(/[\n\r\u2028\u2029]/).length, 2);
    assert.equal((JSON.parse(line) as { message: { content: string } }).message.content, text);
  });

  test("the claude adapter takes further messages on stdin; the command adapter does not", () => {
    assert.equal(adapterFor("claude").conversation?.userMessageLine("hi"), userMessageLine("hi"));
    assert.equal(adapterFor("command").conversation, undefined);
  });

  test("the command adapter still starts its command with the prompt on stdin", () => {
    const settings = checkSettings({ agent: "command", command: ["sh", "-c", "cat"] });
    assert.deepEqual(adapterFor("command").launch({ settings, prompt: "p" }), {
      argv: ["sh", "-c", "cat"],
      env: {},
      stdin: "p",
    });
  });
});
