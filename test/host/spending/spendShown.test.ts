// How a task's spend is shown and how a refusal ends it: the `usage` and `budget` events as watch
// prints them, the cost a list shows, and the terminal record of a task the gate stopped.
import assert from "node:assert/strict";
import { test } from "node:test";
import { decideEnd } from "../../../src/host/decideEnd.js";
import { eventText, listFacts } from "../../../src/host/index.js";
import { NO_SPEND } from "../../../src/host/spending/spendTotals.js";

test("a usage event reads as the cost so far with its tokens", () => {
  const text = eventText("usage", {
    ...NO_SPEND,
    costUSD: 0.0421,
    inputTokens: 12000,
    outputTokens: 300,
    cacheReadTokens: 50,
  });
  assert.equal(text, "cost so far $0.0421 (12000 tokens in, 300 out, 50 cached)");
});

test("a budget event reads as the refusal, cleaned, and says the task ends", () => {
  const text = eventText("budget", { message: "the task has spent $0.2100\u001b[31m" });
  assert.equal(text, "the task has spent $0.2100?[31m; the task ends");
});

test("a list shows the relay's measure over the agent's claim, and never a negative one", () => {
  const settings = { guest: { agent: "codex" } };
  const agent = { costUSD: 0.01 };
  assert.equal(listFacts({ settings, details: { spend: { costUSD: 0.2 }, agent } }).costUSD, 0.2);
  assert.equal(listFacts({ settings, details: { spend: { costUSD: -5 }, agent } }).costUSD, 0.01);
  assert.equal(listFacts({ settings, details: { agent } }).costUSD, 0.01);
});

test("a task the gate stopped ends failed, stopped by budget, with the cap and the spend kept", () => {
  const spend = { ...NO_SPEND, costUSD: 0.21, inputTokens: 12000 };
  const end = decideEnd({
    base: "a".repeat(40),
    stop: "budget",
    results: { kind: "refused", error: "the archive was cut short" },
    exit: { code: 143, signal: null, outOfMemory: false, bound: null },
    timeoutSeconds: undefined,
    attempt: 1,
    sandbox: "bwrap",
    agent: "codex",
    budget: {
      cap: "task",
      task: "x",
      capUSD: 0.2,
      spentUSD: 0.21,
      message: "the task has spent $0.2100, its budget of $0.2000",
    },
    spend,
  });
  assert.equal(end.state, "failed");
  assert.equal(end.stoppedBy, "budget");
  assert.equal(
    end.error,
    "the task has spent $0.2100, its budget of $0.2000; the task was stopped",
  );
  assert.deepEqual(end.details?.budget, { cap: "task", capUSD: 0.2, spentUSD: 0.21 });
  assert.deepEqual(end.details.spend, spend);
});
