// The terminal record is a pure function of what the host knows: these cases need no sandbox.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { synthesizedClaudeResult } from "../../src/agents/claude/outcome.js";
import { decideEnd, type EndFacts } from "../../src/host/decideEnd.js";
import type { Result } from "../../src/protocol/index.js";
import type { TerminalInput } from "../../src/store/index.js";
import { capturedLastLine } from "../agents/streamKit.js";

const BASE = "a".repeat(40);
const HEAD = "b".repeat(40);

function result(over: Partial<Result> = {}): Result {
  return {
    base: BASE,
    head: HEAD,
    agent: "command",
    agentExitCode: 0,
    timedOut: false,
    leftovers: false,
    truncated: [],
    warnings: [],
    ...over,
  };
}

/** The details of a terminal input, or an empty object. */
function details(end: TerminalInput): Record<string, unknown> {
  return end.details ?? {};
}

function facts(over: Partial<EndFacts> = {}): EndFacts {
  return {
    base: BASE,
    stop: undefined,
    results: {
      kind: "received",
      result: result(),
      bundle: { kind: "verified", head: HEAD, commits: 2 },
    },
    exit: { code: 0, signal: null, outOfMemory: false, bound: null },
    timeoutSeconds: undefined,
    attempt: 1,
    sandbox: "bwrap",
    agent: "command",
    ...over,
  };
}

test("a run whose claims the host verified succeeds, with the verified head", () => {
  const end = decideEnd(facts());
  assert.equal(end.state, "succeeded");
  assert.equal(end.stoppedBy, undefined);
  assert.equal(details(end).head, HEAD);
  assert.equal(details(end).changes, true);
  assert.match(end.summary ?? "", /2 commits/);
});

test("a run without changes succeeds with the base as its head", () => {
  const end = decideEnd(
    facts({
      results: { kind: "received", result: result({ head: BASE }), bundle: { kind: "none" } },
    }),
  );
  assert.equal(end.state, "succeeded");
  assert.equal(details(end).head, BASE);
  assert.equal(details(end).changes, false);
  assert.equal(end.summary, "no changes");
});

test("a cancel request wins over everything the sandbox sent", () => {
  const end = decideEnd(facts({ stop: "cancel" }));
  assert.equal(end.state, "cancelled");
  assert.equal(end.stoppedBy, undefined);
});

test("a stop at the deadline is failed, stopped by the deadline", () => {
  const end = decideEnd(facts({ stop: "deadline" }));
  assert.equal(end.state, "failed");
  assert.equal(end.stoppedBy, "deadline");
});

test("a stop at the host's limit is failed, stopped by host_timeout", () => {
  const end = decideEnd(facts({ stop: "host_timeout" }));
  assert.equal(end.state, "failed");
  assert.equal(end.stoppedBy, "host_timeout");
});

test("a stop for a failed model API is failed with the host's words, its code and its fix, not the agent's", () => {
  const apiFailure = {
    code: "API_KEY_REJECTED",
    message: "the anthropic API at http://127.0.0.1:9 refused the API key (HTTP 401)",
    hint: "check ANTHROPIC_API_KEY",
  };
  const end = decideEnd(
    facts({
      stop: "api",
      apiFailure,
      results: {
        kind: "received",
        result: result({ agentExitCode: 143, head: BASE }),
        bundle: { kind: "none" },
      },
    }),
  );
  assert.equal(end.state, "failed");
  assert.equal(end.stoppedBy, undefined, "a failed API is not a bound: exit 1, not 3");
  assert.equal(end.error, apiFailure.message);
  assert.equal(details(end).code, "API_KEY_REJECTED");
  assert.equal(details(end).hint, "check ANTHROPIC_API_KEY");
  assert.equal(details(end).agentExitCode, 143);
  // A cancel that came first wins.
  assert.equal(decideEnd(facts({ stop: "cancel", apiFailure })).state, "cancelled");
});

test("an agent that ran out its timeout is failed, stopped by host_timeout", () => {
  const end = decideEnd(
    facts({
      timeoutSeconds: 5,
      results: {
        kind: "received",
        result: result({ timedOut: true, agentExitCode: 143 }),
        bundle: { kind: "verified", head: HEAD, commits: 1 },
      },
    }),
  );
  assert.equal(end.state, "failed");
  assert.equal(end.stoppedBy, "host_timeout");
  assert.match(end.error ?? "", /timeout of 5 s/);
});

test("refused results fail the task with the refusal as its error", () => {
  const end = decideEnd(facts({ results: { kind: "refused", error: "bad tar" } }));
  assert.equal(end.state, "failed");
  assert.equal(end.error, "bad tar");
  assert.equal(details(end).head, undefined);
});

test("a result that claims another base fails, whatever else it says", () => {
  const end = decideEnd(
    facts({
      results: {
        kind: "received",
        result: result({ base: "c".repeat(40) }),
        bundle: { kind: "verified", head: HEAD, commits: 1 },
      },
    }),
  );
  assert.equal(end.state, "failed");
  assert.match(end.error ?? "", /started from c{40}, but warden sent a{40}/);
});

test("a result whose head is not the bundle's fails", () => {
  const end = decideEnd(
    facts({
      results: {
        kind: "received",
        result: result({ head: "d".repeat(40) }),
        bundle: { kind: "verified", head: HEAD, commits: 1 },
      },
    }),
  );
  assert.equal(end.state, "failed");
  assert.match(end.error ?? "", /changes\.bundle holds b{40}/);
});

test("a result that claims a new head without a bundle fails, and names no head", () => {
  const end = decideEnd(
    facts({ results: { kind: "received", result: result(), bundle: { kind: "none" } } }),
  );
  assert.equal(end.state, "failed");
  assert.match(end.error ?? "", /sent no changes\.bundle/);
  assert.equal(details(end).head, undefined);
});

test("a refused bundle fails the task and is not offered for fetch", () => {
  const end = decideEnd(
    facts({
      results: {
        kind: "received",
        result: result(),
        bundle: {
          kind: "refused",
          error: "changes.bundle was refused: it carries refs/heads/main",
        },
      },
    }),
  );
  assert.equal(end.state, "failed");
  assert.equal(details(end).changes, undefined);
  assert.match(end.error ?? "", /refs\/heads\/main/);
});

test("the sandbox's own error is cleaned and cut before it is recorded", () => {
  const hostile = "boom\u001b[2J\u202e" + "x".repeat(10_000);
  const end = decideEnd(
    facts({
      results: {
        kind: "received",
        result: result({ error: hostile }),
        bundle: { kind: "verified", head: HEAD, commits: 1 },
      },
    }),
  );
  assert.equal(end.state, "failed");
  // eslint-disable-next-line no-control-regex -- matching control characters is the point.
  assert.doesNotMatch(end.error ?? "", /[\u001b\u202e]/);
  assert.ok(Buffer.byteLength(end.error ?? "") < 2200);
  assert.match(end.error ?? "", /\[cut\]$/);
});

test("an agent that exited non-zero fails the task, its verified work still named", () => {
  const end = decideEnd(
    facts({
      results: {
        kind: "received",
        result: result({ agentExitCode: 2 }),
        bundle: { kind: "verified", head: HEAD, commits: 1 },
      },
    }),
  );
  assert.equal(end.state, "failed");
  assert.equal(end.error, "the agent exited with code 2");
  assert.equal(details(end).head, HEAD);
  assert.equal(details(end).changes, true);
});

test("an agent that never ran, a sandbox out of memory and a failed runner all fail", () => {
  const never = decideEnd(
    facts({
      results: {
        kind: "received",
        result: result({ agentExitCode: undefined, head: BASE }),
        bundle: { kind: "none" },
      },
    }),
  );
  assert.equal(never.error, "the agent never ran");
  const oom = decideEnd(
    facts({ exit: { code: 137, signal: null, outOfMemory: true, bound: null } }),
  );
  assert.match(oom.error ?? "", /^the sandbox ran out of memory; its \/tmp and home/);
  assert.equal(oom.stoppedBy, "memory");
  const runner = decideEnd(
    facts({ exit: { code: 1, signal: null, outOfMemory: false, bound: null } }),
  );
  assert.equal(runner.error, "the runner exited with code 1");
});

test("the agent's own summary is used when its last line carries one, cleaned", () => {
  const end = decideEnd(
    facts({
      results: {
        kind: "received",
        result: result({ agentResult: { result: "fixed the bug\u0007" } }),
        bundle: { kind: "verified", head: HEAD, commits: 1 },
      },
    }),
  );
  assert.equal(end.summary, "fixed the bug?");
});

test("the answer the adapter read from the stream is the summary, before the last line's, cleaned", () => {
  const end = decideEnd(
    facts({
      agent: "codex",
      results: {
        kind: "received",
        result: result({
          agent: "codex",
          answer: "Wrote \u001b[31mhi.txt\u001b[0m.",
          agentResult: { type: "turn.completed", usage: { input_tokens: 1 } },
        }),
        bundle: { kind: "verified", head: HEAD, commits: 1 },
      },
    }),
  );
  assert.equal(end.summary, "Wrote ?[31mhi.txt?[0m.");
});

/** The facts of a Claude Code run that ended with `line` and `exitCode`. */
function claude(
  line: Record<string, unknown>,
  exitCode: number,
  over: Partial<EndFacts> = {},
): EndFacts {
  return facts({
    agent: "claude",
    results: {
      kind: "received",
      result: result({ agent: "claude", agentExitCode: exitCode, agentResult: line }),
      bundle: { kind: "verified", head: HEAD, commits: 1 },
    },
    ...over,
  });
}

describe("how a Claude Code run ended, read by its adapter", () => {
  test("a completed run succeeds with its answer, and its turns and cost are kept apart", () => {
    const end = decideEnd(claude(capturedLastLine("claude-run1"), 0));
    assert.equal(end.state, "succeeded");
    assert.equal(end.summary, String(capturedLastLine("claude-run1").result));
    const agent = details(end).agent as Record<string, unknown>;
    assert.equal(agent.ok, true);
    assert.equal(agent.turns, capturedLastLine("claude-run1").num_turns);
    assert.equal(agent.costUSD, capturedLastLine("claude-run1").total_cost_usd);
    assert.equal(details(end).head, HEAD, "the host's own facts stay beside it");
  });

  test("max turns ends it failed, stopped by turns, with Claude Code's words", () => {
    const end = decideEnd(claude(capturedLastLine("claude-run_maxturns"), 1));
    assert.equal(end.state, "failed");
    assert.equal(end.stoppedBy, "turns");
    assert.equal(
      end.error,
      "the agent reached its turn limit: Reached maximum number of turns (2)",
    );
    assert.equal((details(end).agent as Record<string, unknown>).stoppedBy, "turns");
  });

  test("the budget ends it failed, stopped by budget", () => {
    const end = decideEnd(claude(capturedLastLine("claude-run_budget"), 1));
    assert.equal(end.state, "failed");
    assert.equal(end.stoppedBy, "budget");
    assert.match(end.error ?? "", /Reached maximum budget \(\$0\.001\)/);
  });

  test("an API error that Claude Code reports as subtype success ends it failed with the API's message", () => {
    const end = decideEnd(claude(capturedLastLine("claude-run_400"), 1));
    assert.equal(end.state, "failed");
    assert.equal(end.stoppedBy, undefined);
    assert.equal(end.error, "the agent exited with code 1: API Error: 400 bad thing");
  });

  test("an API message with control characters is cleaned and cut", () => {
    const line = {
      ...capturedLastLine("claude-run_400"),
      result: "API Error: 500 \u001b[31mred\u202e" + "z".repeat(10_000),
    };
    const end = decideEnd(claude(line, 1));
    // eslint-disable-next-line no-control-regex -- matching control characters is the point.
    assert.doesNotMatch(end.error ?? "", /[\u001b\u202e]/);
    assert.match(end.error ?? "", /^the agent exited with code 1: API Error: 500 \?\[31mred\?/);
    assert.ok(Buffer.byteLength(end.error ?? "") < 2200);
  });

  test("a run cancelled mid-turn, with the result the runner made up, is cancelled", () => {
    const end = decideEnd(claude(synthesizedClaudeResult(143), 143, { stop: "cancel" }));
    assert.equal(end.state, "cancelled");
    assert.equal((details(end).agent as Record<string, unknown>).madeUp, true);
  });

  test("a run stopped without a cancel, with a made-up result, fails and says it was stopped", () => {
    const end = decideEnd(claude(synthesizedClaudeResult(143), 143));
    assert.equal(end.state, "failed");
    assert.match(
      end.error ?? "",
      /exited with code 143: Claude Code was stopped \(exit 143, SIGTERM\)/,
    );
  });

  test("a run whose last line is not a result (killed while retrying) fails", () => {
    const end = decideEnd(claude(capturedLastLine("claude-run_500"), 1));
    assert.equal(end.state, "failed");
    assert.match(end.error ?? "", /the agent exited with code 1/);
  });

  test("a successful result and then a non-zero exit is not a success", () => {
    const end = decideEnd(claude(capturedLastLine("claude-run1"), 143));
    assert.equal(end.state, "failed");
    assert.match(end.error ?? "", /stopped after its last result/);
  });
});

test("a bound the host saw explains the end, even when the archive it cut short was refused", () => {
  const end = decideEnd(
    facts({
      stop: "bound",
      results: { kind: "refused", error: "results refused: no result.json" },
      exit: {
        code: 137,
        signal: null,
        outOfMemory: false,
        bound: { bound: "disk", detail: "the workspace's disk bound of 256 MiB" },
      },
    }),
  );
  assert.equal(end.state, "failed");
  assert.equal(end.stoppedBy, "disk");
  assert.match(end.error ?? "", /disk bound of 256 MiB and was stopped \(--disk\)/);
  assert.doesNotMatch(end.error ?? "", /result\.json/);
});
