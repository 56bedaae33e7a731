// The runner with the real Codex CLI and the real Gemini CLI, a host on control.sock (a fake
// one, speaking the real protocol), and the model API reached the way warden reaches it: the
// host's real API relay listens on relay.sock in the runner's sockets directory, the runner
// forwards a loopback port to it, the adapter points the CLI at that port, and the relay swaps
// the sandbox's placeholder key for the real one on the way to a scripted API.
//
// Each further message is a new run that resumes the agent's session (both CLIs are
// `resumable`), so these tests also show the runner's series of runs: the inbox, the replies,
// usage across runs, and one transcript for all of them.
import { strict as assert } from "node:assert";
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { mkdir, readFile, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, test, type TestContext } from "node:test";
import { startRelay } from "../../src/egress/index.js";
import { AGENT_HOME_DIR } from "../../src/guest/agentStep.js";
import { findCodexNative } from "../../src/host/codexProgram.js";
import { EGRESS_SOCKETS, type Result } from "../../src/protocol/index.js";
import type { RecordedRequest } from "../support/recordedRequest.js";
import { startScriptedGemini } from "../support/scriptedGemini.js";
import { startScriptedOpenAI } from "../support/scriptedOpenAI.js";
import {
  fetchChanges,
  git,
  makeTask,
  receivedOf,
  runGuest,
  type GuestRun,
  type TaskFixture,
} from "../support/share.js";
import { skipWhen, type SkipReason } from "../support/skipWhen.js";
import { startFakeHost, type FakeHost, type FakeHostOptions } from "./fakeHost.js";

/** The real key: only the relay on the host holds it, and only the scripted API may see it. */
const REAL_KEY = "real-key-only-the-host-holds-0123456789";

/** How long the runner lets the agent run, all runs together; far more than any test needs. */
const TIMEOUT_SECONDS = 120;

/** A model turn, the same words for both APIs. */
type Turn =
  | { readonly kind: "text"; readonly text: string; readonly usage?: Usage }
  | { readonly kind: "command"; readonly cmd: string; readonly usage?: Usage }
  | { readonly kind: "error"; readonly status: number; readonly message: string };

interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** A scripted model API, whichever one the agent speaks. */
interface Api {
  /** The relay's upstream. */
  readonly url: string;
  readonly requests: readonly RecordedRequest[];
  /** The bodies of the requests that took a scripted turn, in order. */
  turns(): unknown[];
  close(): Promise<void>;
}

/** What differs between the two agents; everything else in these tests is the same for both. */
interface AgentCase {
  readonly agent: "codex" | "gemini";
  readonly program: string;
  readonly skip: SkipReason;
  readonly model: string;
  /** Which API the relay speaks, and where the sandbox holds the placeholder key. */
  readonly relayApi: "openai" | "gemini";
  readonly placeholderVariable: string;
  readonly placeholderKey: string;
  startApi(script: readonly Turn[]): Promise<Api>;
  /** The key a request to the API carried, however this API carries it. */
  keyOf(request: RecordedRequest): string | undefined;
  /** The user texts of one request to the model, in order. */
  userTexts(body: unknown): string[];
  /** The transcript line that starts a run's session. */
  readonly sessionLine: string;
  /** A file the runner writes into the agent's home (relative to it). */
  readonly homeFile: string;
  /** Where in the agent's home the CLI keeps a session (relative to the home). */
  readonly sessionFile: RegExp;
  /** The turns of a run with one command: Codex counts one turn, Gemini each model call. */
  readonly commandTurns: number;
  /** The agent's exit code after the API answers 400: Codex's 1, Gemini's status mod 256. */
  readonly errorExitCode: number;
}

/** Codex as the host gives it to the sandbox: the native binary its npm launcher would start. */
const CODEX_LAUNCHER = fileURLToPath(new URL("../../node_modules/.bin/codex", import.meta.url));
const CODEX_NATIVE = existsSync(CODEX_LAUNCHER)
  ? findCodexNative(realpathSync(CODEX_LAUNCHER))
  : undefined;
const GEMINI_BIN = fileURLToPath(new URL("../../node_modules/.bin/gemini", import.meta.url));

function missing(path: string | undefined, what: string): SkipReason {
  return skipWhen(
    path !== undefined && existsSync(path) ? false : `no ${what}: npm ci installs it`,
  );
}

function openAiUserTexts(body: unknown): string[] {
  const input = (body as { input?: unknown } | undefined)?.input;
  if (!Array.isArray(input)) return [];
  return (input as { role?: unknown; content?: unknown }[]).flatMap((item) =>
    item.role === "user" && Array.isArray(item.content)
      ? (item.content as { text?: unknown }[]).flatMap((p) =>
          typeof p.text === "string" ? [p.text] : [],
        )
      : [],
  );
}

function geminiUserTexts(body: unknown): string[] {
  const contents = (body as { contents?: unknown } | undefined)?.contents;
  if (!Array.isArray(contents)) return [];
  return (contents as { role?: unknown; parts?: unknown }[]).flatMap((content) =>
    content.role === "user" && Array.isArray(content.parts)
      ? (content.parts as { text?: unknown }[]).flatMap((p) =>
          typeof p.text === "string" ? [p.text] : [],
        )
      : [],
  );
}

function header(request: RecordedRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(",") : value;
}

const CODEX: AgentCase = {
  agent: "codex",
  program: CODEX_NATIVE ?? "codex",
  skip: missing(CODEX_NATIVE, `native Codex CLI for ${CODEX_LAUNCHER}`),
  model: "gpt-5-codex",
  relayApi: "openai",
  placeholderVariable: "OPENAI_API_KEY",
  placeholderKey: "sk-warden-placeholder-live-codex",
  async startApi(script) {
    const api = await startScriptedOpenAI(script);
    return {
      url: api.url,
      requests: api.requests,
      turns: () => api.responseBodies(),
      close: () => api.close(),
    };
  },
  keyOf: (request) => header(request, "authorization")?.replace(/^Bearer /, ""),
  userTexts: openAiUserTexts,
  sessionLine: '"type":"thread.started"',
  homeFile: ".codex/config.toml",
  sessionFile: /^\.codex\/sessions\/.*\.jsonl$/,
  commandTurns: 1,
  errorExitCode: 1,
};

const GEMINI: AgentCase = {
  agent: "gemini",
  program: GEMINI_BIN,
  skip: missing(GEMINI_BIN, `Gemini CLI at ${GEMINI_BIN}`),
  model: "gemini-2.5-pro",
  relayApi: "gemini",
  placeholderVariable: "GEMINI_API_KEY",
  placeholderKey: "warden-placeholder-live-gemini",
  async startApi(script) {
    const api = await startScriptedGemini(
      script.map((turn) =>
        turn.kind === "command"
          ? {
              kind: "call" as const,
              name: "run_shell_command",
              args: { command: turn.cmd, description: "run it" },
              ...(turn.usage === undefined ? {} : { usage: turn.usage }),
            }
          : turn,
      ),
    );
    return {
      url: api.url,
      requests: api.requests,
      turns: () => api.turnBodies(),
      close: () => api.close(),
    };
  },
  keyOf: (request) => header(request, "x-goog-api-key"),
  userTexts: geminiUserTexts,
  sessionLine: '"type":"init"',
  homeFile: ".gemini/settings.json",
  sessionFile: /^\.gemini\/tmp\/.*\/chats\/session-.*\.jsonl$/,
  commandTurns: 2,
  errorExitCode: 400 % 256,
};

interface LiveRun {
  readonly api: Api;
  readonly host: FakeHost;
  readonly task: TaskFixture;
  readonly run: GuestRun;
  readonly result: Result;
  /** performance.now() from start to end of the runner. */
  readonly ms: number;
}

interface RunOptions {
  readonly host?: FakeHostOptions;
  /** The task's timeout; TIMEOUT_SECONDS when absent. */
  readonly timeoutSeconds?: number;
  readonly onStart?: (child: ChildProcess, task: TaskFixture) => void;
}

/** The runner's agent home, in its scratch directory. */
function agentHome(task: TaskFixture): string {
  return join(task.scratch, AGENT_HOME_DIR);
}

/**
 * Runs one task of `agent` through the built runner: a scripted API behind a real relay on
 * relay.sock, and a fake host on control.sock, in one sockets directory.
 */
async function runLive(
  t: TestContext,
  agent: AgentCase,
  script: readonly Turn[],
  options: RunOptions = {},
): Promise<LiveRun> {
  const api = await agent.startApi(script);
  const host = await startFakeHost(options.host);
  const relay = await startRelay({
    socketPath: join(host.dir, EGRESS_SOCKETS.relay),
    api: agent.relayApi,
    upstream: api.url,
    apiKey: REAL_KEY,
    placeholderKey: agent.placeholderKey,
  });
  t.after(async () => {
    await relay.close();
    await host.close();
    await api.close();
  });
  const task = await makeTask({
    taskJson: JSON.stringify({
      agent: agent.agent,
      agentProgram: agent.program,
      model: agent.model,
      // What the host puts into the sandbox: the placeholder, never the key.
      env: { [agent.placeholderVariable]: agent.placeholderKey },
      timeoutSeconds: options.timeoutSeconds ?? TIMEOUT_SECONDS,
    }),
    prompt: "do the task",
  });
  t.after(() => task.cleanup());
  const home = join(task.root, "home");
  await mkdir(home);
  const started = performance.now();
  const run = await runGuest(task, {
    // Free ports, so that tests and other runners on this machine never meet on 3129.
    args: ["--kill-grace-ms", "2000", "--egress-ports", "any"],
    env: { PATH: process.env.PATH, HOME: home, WARDEN_GUEST_SOCKETS: host.dir },
    ...(options.onStart === undefined
      ? {}
      : { onStart: (child: ChildProcess) => options.onStart?.(child, task) }),
  });
  const ms = performance.now() - started;
  t.diagnostic(`${agent.agent}: the runner took ${ms.toFixed(0)} ms`);
  return { api, host, task, run, result: receivedOf(run).result, ms };
}

function ofType(events: readonly Record<string, unknown>[], type: string) {
  return events.filter((e) => e.type === type);
}

/** The requests that reached the API carried the real key, and never the placeholder. */
function assertRelayed(agent: AgentCase, api: Api): void {
  assert.ok(api.turns().length > 0, "the API saw no request");
  for (const request of api.requests) {
    assert.equal(agent.keyOf(request), REAL_KEY, `${request.method} ${request.path}`);
    assert.ok(!JSON.stringify(request.headers).includes(agent.placeholderKey));
  }
}

/** Every file under `dir`, relative to it. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => relative(dir, join(e.parentPath, e.name)));
}

const WRITE = "echo hello > hello.txt";

for (const agent of [CODEX, GEMINI]) {
  describe(
    `the runner with the real ${agent.agent} CLI through the relay`,
    { skip: agent.skip },
    () => {
      test("a command the model runs writes a file the runner commits, and the host hears it all", async (t) => {
        const { api, host, run, result } = await runLive(t, agent, [
          { kind: "command", cmd: WRITE },
          { kind: "text", text: "Wrote hello.txt." },
        ]);
        assert.equal(run.exitCode, 0, run.stderr);
        assert.equal(result.error, undefined);
        assert.equal(result.agentExitCode, 0, run.stderr);
        assert.deepEqual(result.warnings, []);
        assert.equal(result.leftovers, true);
        const head = await fetchChanges(run, "live");
        assert.equal(await git(run.repo, "show", `${head}:hello.txt`), "hello");

        const events = host.events();
        const kinds = events
          .map((e) => String(e.type))
          .filter((k) => ["session", "tool_use", "tool_result", "usage", "result"].includes(k));
        assert.deepEqual(kinds, ["session", "tool_use", "tool_result", "usage", "result"]);
        assert.match(String(ofType(events, "tool_use")[0]?.summary), /echo hello > hello\.txt/);
        assert.equal(ofType(events, "tool_result")[0]?.ok, true);
        assert.deepEqual(events.at(-1), {
          type: "result",
          ok: true,
          turns: agent.commandTurns,
          message: "Wrote hello.txt.",
        });
        // No message was waiting: the runner asked once and the task ended.
        assert.deepEqual(
          host.recorded
            .map((r) => r.request.op)
            .filter((op) => op !== "events" && !op.startsWith("checkpoint.")),
          ["inbox.next"],
        );
        assertRelayed(agent, api);
      });

      test("a queued message is a resumed run of the same session; its answer is the reply", async (t) => {
        const { api, host, run, result, task } = await runLive(
          t,
          agent,
          [
            { kind: "text", text: "First answer.", usage: { inputTokens: 300, outputTokens: 30 } },
            { kind: "text", text: "Second answer.", usage: { inputTokens: 500, outputTokens: 50 } },
          ],
          { host: { messages: ["and a second question"] } },
        );
        assert.equal(run.exitCode, 0, run.stderr);
        assert.equal(result.agentExitCode, 0, run.stderr);
        assert.deepEqual(result.warnings, []);

        // The model saw the message as the next user turn, after the first exchange.
        const [, second] = api.turns();
        const texts = agent.userTexts(second);
        assert.ok(
          texts.some((text) => text.includes("do the task")),
          JSON.stringify(texts),
        );
        assert.match(texts.at(-1) ?? "", /^and a second question/);
        assert.equal(api.turns().length, 2);

        assert.deepEqual(
          host.inbox.map((m) => [m.n, m.state, m.reply]),
          [[1, "delivered", "Second answer."]],
        );
        assert.deepEqual(
          host.recorded
            .map((r) => r.request.op)
            .filter((op) => op !== "events" && !op.startsWith("checkpoint.")),
          ["inbox.next", "inbox.reply", "inbox.next"],
        );
        const events = host.events();
        // Both runs named the same session.
        const sessions = ofType(events, "session").map((e) => e.sessionId);
        assert.equal(sessions.length, 2);
        assert.equal(sessions[0], sessions[1]);
        // Usage is the task's so far: the second run's figure includes the first's.
        assert.deepEqual(
          ofType(events, "usage").map((e) => [e.inputTokens, e.outputTokens]),
          [
            [300, 30],
            [800, 80],
          ],
        );
        assert.deepEqual(
          ofType(events, "result").map((e) => [e.ok, e.message]),
          [
            [true, "First answer."],
            [true, "Second answer."],
          ],
        );
        // One transcript for both runs, in order.
        const transcript = await readFile(
          receivedOf(run).files["transcript.jsonl"]?.path ?? "",
          "utf8",
        );
        assert.equal(transcript.split(agent.sessionLine).length - 1, 2, transcript);
        const first = transcript.indexOf("First answer.");
        assert.ok(first >= 0 && transcript.indexOf("Second answer.") > first, transcript);
        // The result keeps the agent's own last line, from the last run.
        assert.equal(result.agentResult?.made_up_by, undefined);
        assert.ok(
          transcript.trimEnd().endsWith(JSON.stringify(result.agentResult)),
          JSON.stringify(result.agentResult),
        );
        assert.equal(result.head, result.base, "nothing was written, so nothing was committed");
        assert.ok(existsSync(agentHome(task)));
        assertRelayed(agent, api);
      });

      // A 400, which neither CLI retries. Both retry a 5xx with backoff (Codex 13 and more requests
      // in 8 s, Gemini 5 s between attempts), and the runner gives neither a way to lower that:
      // Codex's retry bounds are provider settings its command line does not set, and Gemini's
      // maxAttempts is honoured here only in the user settings the runner writes (a system
      // settings file under /tmp fails Gemini's own permission check, and a workspace's
      // .gemini/settings.json was ignored).
      test("an API error fails the run, and a queued message is not delivered after it", async (t) => {
        const { api, host, run, result } = await runLive(
          t,
          agent,
          [{ kind: "error", status: 400, message: "the scripted API says no" }],
          { host: { messages: ["never delivered"] } },
        );
        assert.equal(run.exitCode, 0, run.stderr);
        assert.equal(result.agentExitCode, agent.errorExitCode, run.stderr);
        assert.equal(api.turns().length, 1, "the agent tried once: no retries, no further run");
        assert.deepEqual(
          host.inbox.map((m) => m.state),
          ["pending"],
        );
        assert.equal(host.recorded.filter((r) => r.request.op === "inbox.next").length, 0);
        // One account of the run, the agent's own: the runner made none up beside it.
        const results = ofType(host.events(), "result");
        const [only] = results;
        assert.equal(results.length, 1, JSON.stringify(results));
        assert.ok(only !== undefined);
        assert.equal(only.ok, false);
        assert.match(String(only.message), /the scripted API says no/);
        assert.equal(result.agentResult?.made_up_by, undefined);
        assert.match(run.stderr, /the agent's last run failed: no further messages are taken/);
        assertRelayed(agent, api);
      });

      test("a resumed run that fails ends the series: its message gets the error, the next stays queued", async (t) => {
        const { api, host, run, result } = await runLive(
          t,
          agent,
          [
            { kind: "text", text: "First answer." },
            { kind: "error", status: 400, message: "the scripted API says no to the second" },
          ],
          { host: { messages: ["a second question", "a third question"] } },
        );
        assert.equal(run.exitCode, 0, run.stderr);
        assert.equal(result.agentExitCode, agent.errorExitCode, run.stderr);
        assert.equal(api.turns().length, 2);
        const [first, second] = host.inbox;
        assert.equal(first?.state, "delivered");
        assert.match(first.reply ?? "", /the scripted API says no to the second/);
        assert.equal(second?.state, "pending");
        assert.deepEqual(
          host.recorded
            .map((r) => r.request.op)
            .filter((op) => op !== "events" && !op.startsWith("checkpoint.")),
          ["inbox.next", "inbox.reply"],
        );
        assert.deepEqual(
          ofType(host.events(), "result").map((e) => e.ok),
          [true, false],
        );
      });

      test("the agent's home is outside the workspace and none of it is committed", async (t) => {
        const { run, result, task } = await runLive(t, agent, [
          { kind: "command", cmd: WRITE },
          { kind: "text", text: "Wrote hello.txt." },
        ]);
        assert.equal(result.agentExitCode, 0, run.stderr);
        // Nothing but the repository's files and the one the model wrote is committed.
        const head = await fetchChanges(run, "home");
        const committed = (await git(run.repo, "ls-tree", "-r", "--name-only", head)).split("\n");
        assert.deepEqual(committed.sort(), [
          ".gitignore",
          "README.md",
          "hello.txt",
          "step-1.txt",
          "step-2.txt",
        ]);
        const workspaceFiles = await filesUnder(task.workspace);
        assert.ok(
          !workspaceFiles.some((f) => f.startsWith(".codex/") || f.startsWith(".gemini/")),
          workspaceFiles.join("\n"),
        );
        // The agent's configuration and session are in its home, outside the workspace.
        const home = agentHome(task);
        assert.ok(
          relative(task.workspace, home).startsWith(".."),
          "the home is not in the workspace",
        );
        const inHome = await filesUnder(home);
        assert.ok(inHome.includes(agent.homeFile), inHome.join("\n"));
        assert.ok(
          inHome.some((f) => agent.sessionFile.test(f)),
          inHome.join("\n"),
        );
      });
    },
  );
}

/**
 * Resolves once `path` holds `text`; polls, since the file is written by a process of the agent.
 * The shell creates the file before `echo` writes into it, so the file's being there is not enough.
 */
async function fileHolds(path: string, text: string, timeoutMs: number): Promise<void> {
  const until = performance.now() + timeoutMs;
  while (!(existsSync(path) && readFileSync(path, "utf8") === text)) {
    if (performance.now() > until)
      throw new Error(`${path} did not hold ${text} in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the runner stopped while the real Codex CLI runs a command", { skip: CODEX.skip }, () => {
  test("SIGTERM mid-run: the result is made up, and the archive still comes back", async (t) => {
    const { host, run, result, ms } = await runLive(
      t,
      CODEX,
      [
        { kind: "command", cmd: "echo partial > partial.txt && sleep 60" },
        { kind: "text", text: "never reached" },
      ],
      {
        host: { messages: ["never delivered"] },
        // Stopped once the command has written its file and sleeps: mid-command, mid-turn.
        onStart: (child, task) => {
          fileHolds(join(task.workspace, "partial.txt"), "partial\n", 60_000).then(
            () => child.kill("SIGTERM"),
            () => undefined,
          );
        },
      },
    );
    assert.equal(run.exitCode, 1, run.stderr);
    assert.ok(ms < 30_000, `the runner took ${ms} ms: the command's sleep was not cut short`);
    assert.match(result.error ?? "", /stopped by SIGTERM/);
    assert.equal(result.agentExitCode, 128 + 15, run.stderr);
    assert.equal(result.agentResult?.made_up_by, "warden");
    assert.equal(result.agentResult.type, "turn.failed");
    const results = ofType(host.events(), "result");
    assert.deepEqual(results, [
      {
        type: "result",
        ok: false,
        message: "Codex CLI was stopped (exit 143, SIGTERM) before its turn ended",
      },
    ]);
    assert.deepEqual(
      host.inbox.map((m) => m.state),
      ["pending"],
    );
    assert.equal(host.recorded.filter((r) => r.request.op === "inbox.next").length, 0);
    // What the agent left is still committed and sent, with the transcript of its run.
    assert.equal(result.leftovers, true);
    const head = await fetchChanges(run, "stopped");
    assert.equal(await git(run.repo, "show", `${head}:partial.txt`), "partial");
    const transcript = receivedOf(run).files["transcript.jsonl"];
    assert.ok(transcript !== undefined);
    assert.match(await readFile(transcript.path, "utf8"), /"type":"thread.started"/);
  });
});

describe("the timeout of a task of the real Codex CLI", { skip: CODEX.skip }, () => {
  // Under Codex's own 10 s limit on one command, so that only the task's limit can end the
  // second sleep; the first sleep is short, so a loaded machine still starts Codex twice in it.
  const TIMEOUT_S = 9;
  test("bounds all its runs together: a resumed run only gets what the first one left", async (t) => {
    const { host, run, result } = await runLive(
      t,
      CODEX,
      [
        { kind: "command", cmd: "sleep 1" },
        { kind: "text", text: "Slept." },
        { kind: "command", cmd: "sleep 60" },
        { kind: "text", text: "never reached" },
      ],
      { host: { messages: ["sleep again"] }, timeoutSeconds: TIMEOUT_S },
    );
    assert.equal(run.exitCode, 0, run.stderr);
    assert.equal(result.timedOut, true);
    const taken = host.inbox[0]?.takenAt;
    assert.ok(taken !== undefined, "the message was never taken");
    // The first run spent at least its 1 s sleep and a start of Codex of the task's time, so the
    // resumed run had at most what was left, never a time limit of its own.
    const lastRequest = host.recorded.at(-1)?.at ?? Number.NaN;
    const resumedMs = lastRequest - taken;
    t.diagnostic(`the resumed run lasted ${resumedMs.toFixed(0)} ms`);
    assert.ok(resumedMs < (TIMEOUT_S - 0.5) * 1000, `the resumed run lasted ${resumedMs} ms`);
    assert.equal(host.inbox[0]?.state, "delivered");
  });
});
