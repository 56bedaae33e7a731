// A host that misbehaves on the channel (closes it mid-run, answers garbage, answers slowly or
// not at all, refuses) never hangs or crashes the runner: the agent's run completes and the
// result says what the host missed. And the `command` agent runs as it always did.
import { strict as assert } from "node:assert";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test, type TestContext } from "node:test";
import { CHANNEL_LIMITS, type Result } from "../../src/protocol/index.js";
import { CLAUDE_BIN, PLACEHOLDER_KEY, claudeUnavailable } from "../support/claudeRun.js";
import { startScriptedAnthropic, type ScriptedTurn } from "../support/scriptedAnthropic.js";
import { makeTask, receivedOf, runGuest, shellAgent, type GuestRun } from "../support/share.js";
import { skipWhen } from "../support/skipWhen.js";
import { startFakeHost, type FakeHost, type FakeHostOptions } from "./fakeHost.js";

const skip = skipWhen(claudeUnavailable());

/** A tool call, then an answer: enough events for a few requests, and one turn boundary. */
const SCRIPT: readonly ScriptedTurn[] = [
  { kind: "tool_use", name: "Bash", input: { command: "echo working" }, text: "Working." },
  { kind: "text", text: "Done." },
];

async function fakeHost(t: TestContext, options: FakeHostOptions = {}): Promise<FakeHost> {
  const host = await startFakeHost(options);
  t.after(() => host.close());
  return host;
}

async function runWithHost(
  t: TestContext,
  settings: Record<string, unknown>,
  host: FakeHost | undefined,
  args: readonly string[] = [],
): Promise<{ run: GuestRun; result: Result; ms: number }> {
  const fixture = await makeTask({ taskJson: JSON.stringify(settings) });
  t.after(() => fixture.cleanup());
  const home = join(fixture.root, "home");
  await mkdir(home);
  const started = performance.now();
  const run = await runGuest(fixture, {
    args: ["--kill-grace-ms", "2000", ...args],
    env: {
      PATH: process.env.PATH,
      HOME: home,
      ...(host === undefined ? {} : { WARDEN_GUEST_SOCKETS: host.dir }),
    },
  });
  return { run, result: receivedOf(run).result, ms: performance.now() - started };
}

async function runClaude(
  t: TestContext,
  host: FakeHost,
  args: readonly string[] = [],
  script: readonly ScriptedTurn[] = SCRIPT,
): Promise<{ run: GuestRun; result: Result; ms: number }> {
  const api = await startScriptedAnthropic(script);
  t.after(() => api.close());
  return runWithHost(
    t,
    {
      agent: "claude",
      agentProgram: CLAUDE_BIN,
      env: { ANTHROPIC_API_KEY: PLACEHOLDER_KEY, ANTHROPIC_BASE_URL: api.url },
      timeoutSeconds: 120,
    },
    host,
    args,
  );
}

/** The agent itself was not hurt: it ran to its own successful end. */
function agentCompleted(run: GuestRun, result: Result): void {
  assert.equal(run.exitCode, 0, run.stderr);
  assert.equal(result.error, undefined);
  assert.equal(result.agentExitCode, 0);
  assert.equal(result.agentResult?.result, "Done.");
}

describe("the command agent", () => {
  const command = {
    agent: "command",
    command: shellAgent('cat > prompt.txt; echo \'{"result":"fine"}\''),
  };

  test("runs as before without a channel", async (t) => {
    const { run, result } = await runWithHost(t, command, undefined);
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(result.agentExitCode, 0);
    assert.deepEqual(result.agentResult, { result: "fine" });
    assert.deepEqual(result.warnings, []);
  });

  test("runs as before with a channel, and sends the host its output lines and no checkpoint at its end", async (t) => {
    const host = await fakeHost(t);
    const { run, result } = await runWithHost(t, command, host);
    assert.equal(run.exitCode, 0, run.stderr);
    assert.deepEqual(result.agentResult, { result: "fine" });
    assert.deepEqual(result.warnings, []);
    // A command keeps no session, and its results carry the workspace: a checkpoint as it ends
    // would hold nothing a resume could use.
    assert.equal(host.checkpoints.length, 0);
    assert.deepEqual(
      host.recorded.map((r) => r.request).filter((r) => !r.op.startsWith("checkpoint.")),
      [
        {
          v: 1,
          id: 1,
          op: "events",
          events: [{ type: "output", stream: "stdout", text: '{"result":"fine"}', cut: false }],
        },
      ],
    );
    assert.match(run.stderr, /connected to the host's channel/);
  });

  test("a control.sock that nobody listens on is a warning, and the run goes on", async (t) => {
    const host = await fakeHost(t);
    await host.close();
    // A plain file where the socket was: connecting fails at once.
    await mkdir(host.dir, { recursive: true });
    await writeFile(host.socket, "");
    const { run, result } = await runWithHost(t, command, host);
    assert.equal(run.exitCode, 0, run.stderr);
    assert.deepEqual(result.agentResult, { result: "fine" });
    assert.equal(result.warnings.length, 1);
    assert.match(result.warnings[0] ?? "", /could not connect to the host's channel/);
  });
});

describe("a host that misbehaves on the channel, with the real Claude Code CLI", { skip }, () => {
  test("closing the channel mid-run: the run completes, and the result says what was lost", async (t) => {
    const host = await fakeHost(t, {
      misbehave: (request) =>
        request.op === "events" && request.events.some((e) => e.type === "tool_use")
          ? { kind: "close" }
          : { kind: "answer" },
    });
    const { run, result } = await runClaude(t, host);
    agentCompleted(run, result);
    const warnings = result.warnings.join("\n");
    assert.match(
      warnings,
      /the channel to the host broke while the agent ran: the host closed the channel/,
    );
    assert.match(warnings, /events were not sent: the channel to the host broke/);
    assert.match(warnings, /could not ask the host for messages/);
  });

  test("answering garbage: the run completes with a warning", async (t) => {
    const host = await fakeHost(t, {
      misbehave: (_request, index) =>
        index === 0 ? { kind: "garbage", bytes: "\u0000{not json at all\n" } : { kind: "answer" },
    });
    const { run, result } = await runClaude(t, host);
    agentCompleted(run, result);
    assert.match(
      result.warnings.join("\n"),
      /answered with something that is not a channel response/,
    );
  });

  test("an endless answer line: the runner stops reading it at the limit, and the run completes", async (t) => {
    const host = await fakeHost(t, {
      misbehave: (_request, index) =>
        index === 0
          ? { kind: "garbage", bytes: "x".repeat(CHANNEL_LIMITS.responseBytes * 2) }
          : { kind: "answer" },
    });
    const { run, result } = await runClaude(t, host);
    agentCompleted(run, result);
    assert.match(
      result.warnings.join("\n"),
      new RegExp(`a line over ${CHANNEL_LIMITS.responseBytes} bytes`),
    );
  });

  test("answering the wrong request: the run completes with a warning", async (t) => {
    const host = await fakeHost(t, {
      misbehave: (_request, index) =>
        index === 0
          ? { kind: "garbage", bytes: '{"v":1,"id":99,"ok":true,"op":"inbox.reply"}\n' }
          : { kind: "answer" },
    });
    const { run, result } = await runClaude(t, host);
    agentCompleted(run, result);
    assert.match(result.warnings.join("\n"), /answered request 99 where 1 was asked/);
  });

  test("never answering inbox.next: the runner gives up at its timeout and the run ends", async (t) => {
    const host = await fakeHost(t, {
      messages: ["never delivered"],
      misbehave: (request) =>
        request.op === "inbox.next" ? { kind: "silent" } : { kind: "answer" },
    });
    const { run, result, ms } = await runClaude(t, host, ["--channel-timeout-ms", "700"]);
    agentCompleted(run, result);
    assert.match(
      result.warnings.join("\n"),
      /the host did not answer a inbox\.next request within 0\.7 s/,
    );
    assert.ok(ms < 30_000, `the run took ${ms} ms`);
  });

  test("answering slowly within the timeout: nothing is lost, the events only go in fewer requests", async (t) => {
    const host = await fakeHost(t, {
      misbehave: (request) =>
        request.op === "events" ? { kind: "slow", ms: 300 } : { kind: "answer" },
    });
    const { run, result } = await runClaude(t, host);
    agentCompleted(run, result);
    assert.deepEqual(result.warnings, []);
    const kinds = host.events().map((e) => e.type);
    assert.deepEqual(
      kinds.filter((k) => k === "tool_use" || k === "result"),
      ["tool_use", "result"],
    );
  });

  test("answering slower than the timeout: the run completes, and the result says so", async (t) => {
    const host = await fakeHost(t, {
      misbehave: () => ({ kind: "slow", ms: 5_000 }),
    });
    const { run, result, ms } = await runClaude(t, host, ["--channel-timeout-ms", "500"]);
    agentCompleted(run, result);
    assert.match(result.warnings.join("\n"), /did not answer a events request within 0\.5 s/);
    assert.ok(ms < 30_000, `the run took ${ms} ms`);
  });

  test("refusing every events request: they are counted as refused, and messages still flow", async (t) => {
    const host = await fakeHost(t, {
      messages: ["one more"],
      misbehave: (request) =>
        request.op === "events"
          ? {
              kind: "garbage",
              bytes: `{"v":1,"id":${request.id},"ok":false,"error":{"code":"rate_limited","message":"slow down"}}\n`,
            }
          : { kind: "answer" },
    });
    const { run, result } = await runClaude(
      t,
      host,
      [],
      [...SCRIPT, { kind: "text", text: "Done." }],
    );
    agentCompleted(run, result);
    assert.deepEqual(
      host.inbox.map((m) => [m.state, m.reply]),
      [["delivered", "Done."]],
    );
    assert.equal(result.warnings.length, 1, result.warnings.join("\n"));
    assert.match(
      result.warnings[0] ?? "",
      /the host refused [0-9]+ of the agent's events: .*rate_limited.*slow down/,
    );
  });
});
