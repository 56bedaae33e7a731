import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import {
  BadSettingsError,
  LIMITS,
  checkSettings,
  parseSettings,
  type Settings,
} from "../../src/protocol/index.js";
import { MAX_APPEND_SYSTEM_PROMPT_BYTES, MAX_TOOL_PATTERNS } from "../../src/protocol/settings.js";

const good: Settings = {
  agent: "command",
  command: ["sh", "-c", "echo hi"],
  model: "claude-sonnet-4.5",
  maxTurns: 20,
  maxBudgetUSD: 2.5,
  timeoutSeconds: 3600,
  gitName: "Ada Lovelace",
  gitEmail: "ada@example.com",
};

function bytes(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value));
}

function refused(value: unknown, pattern: RegExp): void {
  assert.throws(
    () => checkSettings(value),
    (error: unknown) => {
      assert.ok(error instanceof BadSettingsError);
      assert.equal(error.code, "BAD_SETTINGS");
      assert.match(error.message, pattern);
      return true;
    },
  );
}

/** As refused, for the bytes of task.json as the guest reads them. */
function refusedBytes(value: Buffer, pattern: RegExp): void {
  assert.throws(
    () => parseSettings(value),
    (error: unknown) => error instanceof BadSettingsError && pattern.test(error.message),
  );
}

describe("settings", () => {
  test("a gitName with a bidi override or zero-width character is refused", () => {
    refused({ ...good, gitName: "Ada\u202eevil" }, /gitName/);
    refused({ ...good, gitName: "Ada\u200b" }, /gitName/);
  });

  test("agent environment takes portable names and refuses warden's own", () => {
    assert.deepEqual(checkSettings({ ...good, env: { ANTHROPIC_API_KEY: "x", my_var: "" } }).env, {
      ANTHROPIC_API_KEY: "x",
      my_var: "",
    });
    refused({ ...good, env: { WARDEN_TASK_ID: "x" } }, /warden's own/);
    refused({ ...good, env: { "BAD-NAME": "x" } }, /variable name/);
    refused({ ...good, env: { A: "x\0y" } }, /NUL/);
    refused(
      { ...good, env: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`V${i}`, ""])) },
      /more than 64/,
    );
  });

  test("good settings round-trip through their bytes", () => {
    assert.deepEqual(parseSettings(bytes(good)), good);
  });

  test("the smallest settings are an agent and its command", () => {
    assert.deepEqual(parseSettings(bytes({ agent: "command", command: ["true"] })), {
      agent: "command",
      command: ["true"],
    });
  });

  test("zero numbers mean the default and are taken", () => {
    const zero = { ...good, maxTurns: 0, maxBudgetUSD: 0, timeoutSeconds: 0 };
    assert.deepEqual(checkSettings(zero), zero);
  });

  test("an unknown field is refused", () => {
    refused({ ...good, dangerouslySkipPermissions: true }, /dangerouslySkipPermissions/);
  });

  test("a negative number is refused", () => {
    refused({ ...good, maxTurns: -1 }, /maxTurns/);
    refused({ ...good, maxBudgetUSD: -0.01 }, /maxBudgetUSD/);
    refused({ ...good, timeoutSeconds: -5 }, /timeoutSeconds/);
  });

  test("NaN is refused", () => {
    refused({ ...good, maxBudgetUSD: NaN }, /maxBudgetUSD/);
    refused({ ...good, maxTurns: NaN }, /maxTurns/);
  });

  test("Infinity is refused", () => {
    refused({ ...good, maxBudgetUSD: Infinity }, /maxBudgetUSD/);
    refused({ ...good, timeoutSeconds: Infinity }, /timeoutSeconds/);
  });

  test("a number JSON cannot hold is refused from the bytes", () => {
    assert.throws(
      () => parseSettings(Buffer.from('{"agent":"command","command":["x"],"maxTurns":NaN}')),
      BadSettingsError,
    );
    assert.throws(
      () => parseSettings(Buffer.from('{"agent":"command","command":["x"],"maxBudgetUSD":1e999}')),
      BadSettingsError,
    );
  });

  test("a maxTurns that is not a whole number is refused", () => {
    refused({ ...good, maxTurns: 2.5 }, /maxTurns/);
  });

  test("a number past its bound is refused", () => {
    refused({ ...good, maxTurns: LIMITS.maxTurns + 1 }, /maxTurns/);
    refused({ ...good, timeoutSeconds: LIMITS.timeoutSeconds + 1 }, /timeoutSeconds/);
  });

  test("a model starting with - is refused, so it cannot pass for an option", () => {
    refused({ ...good, model: "--dangerously-skip-permissions" }, /model/);
  });

  test("a model with a space or a control character is refused", () => {
    refused({ ...good, model: "opus --yolo" }, /model/);
    refused({ ...good, model: "opus\tx" }, /model/);
    refused({ ...good, model: "opus\x1b" }, /model/);
  });

  test("a gitName with < or > is refused, so it cannot forge an author's email", () => {
    refused({ ...good, gitName: "Eve <root@example.com>" }, /gitName/);
  });

  test("a gitName with a control character is refused", () => {
    refused({ ...good, gitName: "Eve\nCommitter: x" }, /gitName/);
  });

  test("a gitName with a space is taken", () => {
    assert.equal(checkSettings({ ...good, gitName: "Grace Hopper" }).gitName, "Grace Hopper");
  });

  test("a gitEmail with a space is refused", () => {
    refused({ ...good, gitEmail: "ada @example.com" }, /gitEmail/);
    refused({ ...good, gitEmail: "ada@example.com>" }, /gitEmail/);
  });

  test("a hostile git identity in task.json is refused: a newline, a NUL, < or >, too long, empty", () => {
    const over = "a".repeat(LIMITS.settingTextBytes + 1);
    for (const gitName of ["Eve\nauthor x", "Eve\0", "Eve <e@x>", over, ""]) {
      refusedBytes(bytes({ ...good, gitName }), /gitName/);
    }
    for (const gitEmail of ["e@x\nauthor", "e@x\0", "<e@x", `${over}@x`, ""]) {
      refusedBytes(bytes({ ...good, gitEmail }), /gitEmail/);
    }
  });

  test("a setting text over its limit in bytes is refused", () => {
    // 86 characters of three bytes each: within the limit in characters, over it in bytes.
    refused({ ...good, gitName: "日".repeat(86) }, /gitName/);
  });

  test("a command is required and may not hold a NUL byte", () => {
    refused({ agent: "command" }, /command/);
    refused({ ...good, command: ["sh", "a\0b"] }, /command/);
    refused({ ...good, command: [] }, /command/);
  });

  test("an unknown agent is refused", () => {
    refused({ ...good, agent: "rm -rf" }, /agent/);
  });

  test("trailing data after the JSON is refused", () => {
    assert.throws(
      () => parseSettings(Buffer.concat([bytes(good), Buffer.from('{"agent":"command"}')])),
      BadSettingsError,
    );
    assert.throws(() => parseSettings(Buffer.concat([bytes(good), Buffer.from("x")])), /not JSON/);
  });

  test("whitespace after the JSON is taken", () => {
    assert.deepEqual(parseSettings(Buffer.concat([bytes(good), Buffer.from("\n")])), good);
  });

  test("bytes that are not UTF-8 are refused", () => {
    const bad = Buffer.from('{"agent":"command","command":["x"],"gitName":"\xff"}', "latin1");
    assert.throws(() => parseSettings(bad), /not UTF-8/);
  });

  test("settings over their size limit are refused before they are parsed", () => {
    const big = Buffer.alloc(LIMITS.settingsBytes + 1, 0x20);
    assert.throws(
      () => parseSettings(big),
      (error: unknown) => error instanceof BadSettingsError && /over the limit/.test(error.message),
    );
  });

  test("a value that is not an object is refused", () => {
    assert.throws(() => parseSettings(Buffer.from("[]")), BadSettingsError);
    assert.throws(() => parseSettings(Buffer.from("null")), BadSettingsError);
  });

  test("a hostile field name comes out cleaned in the error", () => {
    assert.throws(
      () => checkSettings({ ...good, "\x1b[2J\u202Eevil": 1 }),
      (error: unknown) => {
        assert.ok(error instanceof BadSettingsError);
        assert.ok(!error.message.includes("\x1b") && !error.message.includes("\u202E"));
        return true;
      },
    );
  });
});

describe("settings for the claude agent", () => {
  const claude: Settings = {
    agent: "claude",
    model: "claude-opus-5-5",
    maxTurns: 30,
    maxBudgetUSD: 5,
    allowedTools: ["Read", "Bash(git commit:*)", "mcp__github__*", "WebFetch(domain:example.com)"],
    disallowedTools: ["Bash(rm -rf *)", "WebSearch"],
    appendSystemPrompt: "Keep commits small.\n\tOne idea each.",
    approve: "never",
    agentProgram: "/opt/claude/bin/claude",
  };

  test("the smallest claude settings are the agent's name alone", () => {
    assert.deepEqual(parseSettings(bytes({ agent: "claude" })), { agent: "claude" });
  });

  test("claude settings with every field round-trip through their bytes", () => {
    assert.deepEqual(parseSettings(bytes(claude)), claude);
  });

  test("a command is refused for the claude agent, so it is never silently ignored", () => {
    refused({ agent: "claude", command: ["claude", "-p"] }, /claude agent does not take command/);
  });

  test("claude's own fields are refused for the command agent", () => {
    refused({ ...good, approve: "always" }, /command agent does not take approve/);
    refused({ ...good, allowedTools: ["Bash"] }, /allowedTools/);
    refused({ ...good, agentProgram: "/usr/bin/claude" }, /agentProgram/);
  });

  test("approve takes always, never and prompt, and nothing else", () => {
    for (const approve of ["always", "never", "prompt"]) {
      assert.equal(checkSettings({ agent: "claude", approve }).approve, approve);
    }
    refused({ agent: "claude", approve: "sometimes" }, /approve/);
  });

  test("a tool pattern starting with - is refused, so it cannot pass for an option", () => {
    refused({ agent: "claude", allowedTools: ["--dangerously-skip-permissions"] }, /allowedTools/);
    refused({ agent: "claude", disallowedTools: ["-x"] }, /disallowedTools/);
  });

  test("a tool pattern that is not a tool name with an optional rule is refused", () => {
    refused({ agent: "claude", allowedTools: [""] }, /not a tool pattern/);
    refused({ agent: "claude", allowedTools: ["Bash git"] }, /not a tool pattern/);
    refused({ agent: "claude", allowedTools: ["(Bash)"] }, /not a tool pattern/);
    refused({ agent: "claude", allowedTools: ["Bash(ls"] }, /not a tool pattern/);
  });

  test("a tool pattern with a control character is refused", () => {
    refused({ agent: "claude", allowedTools: ["Bash(ls\n)"] }, /control character/);
    refused({ agent: "claude", allowedTools: ["Bash(ls\u202e)"] }, /control character/);
  });

  test("too many tool patterns, or one too long, are refused", () => {
    const many = Array.from({ length: MAX_TOOL_PATTERNS + 1 }, (_, i) => `Tool${i}`);
    refused({ agent: "claude", allowedTools: many }, /allowedTools/);
    refused({ agent: "claude", allowedTools: [`Bash(${"x".repeat(1100)})`] }, /over 1024 bytes/);
  });

  test("an appended system prompt takes lines and tabs but no other control character", () => {
    refused({ agent: "claude", appendSystemPrompt: "a\u001b[2Jb" }, /appendSystemPrompt/);
    refused({ agent: "claude", appendSystemPrompt: "a\rb" }, /appendSystemPrompt/);
    refused({ agent: "claude", appendSystemPrompt: "" }, /appendSystemPrompt/);
    refused(
      { agent: "claude", appendSystemPrompt: "x".repeat(MAX_APPEND_SYSTEM_PROMPT_BYTES + 1) },
      /appendSystemPrompt/,
    );
  });

  test("the agent program must be an absolute path without control characters", () => {
    refused({ agent: "claude", agentProgram: "claude" }, /absolute path/);
    refused({ agent: "claude", agentProgram: "-p" }, /absolute path/);
    refused({ agent: "claude", agentProgram: "/bin/cl\u0000aude" }, /control character/);
  });
});
