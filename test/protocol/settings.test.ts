import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import {
  BadSettingsError,
  LIMITS,
  checkSettings,
  parseSettings,
  type Settings,
} from "../../src/protocol/index.js";

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
