// The codex and gemini adapters as the runner sees them: a task (settings, prompt, home, relay
// URL, resume) in, a launch plan out; one ledger per adapter; outcomes judged from the run's last
// result. Pure: no agent runs here (test/guest/liveCodexGemini.test.ts runs the real CLIs).
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import {
  adapterFor,
  type AgentAdapter,
  type AgentEvent,
  type AgentLaunch,
  type AgentTask,
} from "../../src/agents/index.js";
import { CODEX_HOME_DIR, codexTaskOf, createCodexAgent } from "../../src/agents/codex/index.js";
import { createGeminiAgent, geminiTaskOf } from "../../src/agents/gemini/index.js";
import {
  AGENT_PROFILES,
  AGENTS,
  BadSettingsError,
  checkSettings,
  type Settings,
} from "../../src/protocol/index.js";
import { ofType } from "./streamKit.js";

const HOME = "/scratch/agent-home";
const RELAY = "http://127.0.0.1:41234";
const SESSION = "0199a213-81c0-7800-8aa1-bbab2ba53a72";

const CODEX_OPTIONS = [
  "--json",
  "--skip-git-repo-check",
  "--dangerously-bypass-approvals-and-sandbox",
];
const GEMINI_OPTIONS = ["--output-format=stream-json", "--approval-mode=yolo", "--skip-trust"];

function task(settings: Settings, rest: Partial<AgentTask> = {}): AgentTask {
  return { settings, prompt: "do the task", ...rest };
}

/** Reads one run's lines through a fresh reader of the adapter, as the runner does per run. */
function readRun(adapter: AgentAdapter, lines: readonly Record<string, unknown>[]): AgentEvent[] {
  const reader = adapter.readStream();
  return [...lines.flatMap((line) => reader.line(JSON.stringify(line))), ...reader.end()];
}

/** Gemini's settings as the launch would have the runner write them. */
function settingsOf(launch: AgentLaunch): Record<string, unknown> {
  const file = launch.files?.find((f) => f.path.endsWith("/.gemini/settings.json"));
  assert.ok(file !== undefined, "the launch names no settings file");
  return JSON.parse(file.text) as Record<string, unknown>;
}

/** One `codex exec` run of a thread: one turn, ending with the thread's usage so far. */
function codexRun(thread: string, input: number, output: number): Record<string, unknown>[] {
  return [
    { type: "thread.started", thread_id: thread },
    { type: "turn.started" },
    { type: "item.completed", item: { id: "item_0", type: "agent_message", text: "Done." } },
    { type: "turn.completed", usage: { input_tokens: input, output_tokens: output } },
  ];
}

/** One Gemini run: its session, an answer, and a result with the run's own usage. */
function geminiRun(session: string, input: number, output: number): Record<string, unknown>[] {
  return [
    { type: "init", session_id: session, model: "gemini-2.5-pro" },
    { type: "message", role: "user", content: "do the task" },
    { type: "message", role: "assistant", content: "Done.", delta: true },
    {
      type: "result",
      status: "success",
      stats: { input_tokens: input, output_tokens: output, total_tokens: input + output },
    },
  ];
}

describe("the codex adapter's launch from a task", () => {
  const settings = checkSettings({
    agent: "codex",
    model: "gpt-5-codex",
    agentProgram: "/opt/codex/bin/codex",
  });

  test("the first run is codex exec with the prompt on stdin and CODEX_HOME inside the task's home", () => {
    const launch = createCodexAgent().launch(task(settings, { home: HOME }));
    assert.deepEqual(launch.argv, [
      "/opt/codex/bin/codex",
      "exec",
      ...CODEX_OPTIONS,
      "--model=gpt-5-codex",
      "--",
      "-",
    ]);
    assert.equal(launch.stdin, "do the task");
    assert.deepEqual(launch.env, { CODEX_HOME: `${HOME}/${CODEX_HOME_DIR}` });
    assert.deepEqual(
      launch.files?.map((f) => f.path),
      [`${HOME}/.codex/config.toml`],
    );
    for (const file of launch.files ?? []) assert.ok(file.path.startsWith(`${HOME}/`));
  });

  test("without a home there is no CODEX_HOME and no file to write", () => {
    const launch = createCodexAgent().launch(task(settings));
    assert.deepEqual(launch.env, {});
    assert.equal(launch.files, undefined);
  });

  test("a resume is codex exec resume with the session after -- and the message on stdin", () => {
    const launch = createCodexAgent().launch(
      task(settings, { home: HOME, resume: { sessionId: SESSION, message: "--and then this" } }),
    );
    assert.deepEqual(launch.argv, [
      "/opt/codex/bin/codex",
      "exec",
      "resume",
      ...CODEX_OPTIONS,
      "--model=gpt-5-codex",
      "--",
      SESSION,
      "-",
    ]);
    assert.equal(launch.stdin, "--and then this");
    assert.equal(launch.env.CODEX_HOME, `${HOME}/.codex`);
  });

  test("a session id that could pass for an option is refused", () => {
    assert.throws(
      () =>
        createCodexAgent().launch(
          task(settings, { resume: { sessionId: "--help", message: "hi" } }),
        ),
      BadSettingsError,
    );
  });

  test("the relay's base URL becomes warden's model provider with OPENAI_API_KEY as its key", () => {
    const launch = createCodexAgent().launch(task(settings, { home: HOME, apiBaseUrl: RELAY }));
    const config = launch.argv.filter((a) => a.startsWith("--config="));
    assert.deepEqual(config, [
      '--config=model_provider="warden"',
      '--config=model_providers.warden.name="warden"',
      `--config=model_providers.warden.base_url="${RELAY}"`,
      '--config=model_providers.warden.env_key="OPENAI_API_KEY"',
      '--config=model_providers.warden.wire_api="responses"',
    ]);
    // Every option comes before the `--` that ends them.
    assert.ok(launch.argv.lastIndexOf("--") > launch.argv.indexOf(config.at(-1) ?? ""));
  });

  test("codexTaskOf keeps what Codex takes and nothing of the runner's own", () => {
    assert.deepEqual(
      codexTaskOf(
        task(settings, {
          home: HOME,
          apiBaseUrl: RELAY,
          resume: { sessionId: SESSION, message: "more" },
        }),
      ),
      {
        prompt: "do the task",
        model: "gpt-5-codex",
        agentProgram: "/opt/codex/bin/codex",
        resume: { sessionId: SESSION, message: "more" },
        api: { baseUrl: RELAY, keyVariable: "OPENAI_API_KEY" },
      },
    );
    assert.deepEqual(codexTaskOf(task(checkSettings({ agent: "codex" }))), {
      prompt: "do the task",
    });
  });
});

describe("the gemini adapter's launch from a task", () => {
  const settings = checkSettings({
    agent: "gemini",
    model: "gemini-2.5-pro",
    agentProgram: "/opt/gemini/bin/gemini",
    maxTurns: 7,
  });

  test("the first run has the prompt on stdin, GEMINI_CLI_HOME = home, and settings.json inside it", () => {
    const launch = createGeminiAgent().launch(task(settings, { home: HOME }));
    assert.deepEqual(launch.argv, [
      "/opt/gemini/bin/gemini",
      ...GEMINI_OPTIONS,
      "--model=gemini-2.5-pro",
    ]);
    assert.equal(launch.stdin, "do the task");
    assert.deepEqual(launch.env, { GEMINI_CLI_NO_RELAUNCH: "true", GEMINI_CLI_HOME: HOME });
    assert.deepEqual(
      launch.files?.map((f) => f.path),
      [`${HOME}/.gemini/settings.json`],
    );
    const written = settingsOf(launch);
    assert.deepEqual(written.model, { maxSessionTurns: 7 });
    assert.equal(written.security, undefined, "no relay: Gemini's own login is left alone");
  });

  test("without a home there is no GEMINI_CLI_HOME and no file to write", () => {
    const launch = createGeminiAgent().launch(task(settings));
    assert.deepEqual(launch.env, { GEMINI_CLI_NO_RELAUNCH: "true" });
    assert.equal(launch.files, undefined);
  });

  test("a resume names the session in its own --resume= argument and the message goes on stdin", () => {
    const launch = createGeminiAgent().launch(
      task(settings, { home: HOME, resume: { sessionId: SESSION, message: "--and then this" } }),
    );
    assert.deepEqual(launch.argv, [
      "/opt/gemini/bin/gemini",
      ...GEMINI_OPTIONS,
      "--model=gemini-2.5-pro",
      `--resume=${SESSION}`,
    ]);
    assert.equal(launch.stdin, "--and then this");
    assert.equal(launch.env.GEMINI_CLI_HOME, HOME);
  });

  test("the relay's base URL is GOOGLE_GEMINI_BASE_URL, with the API key login in the settings", () => {
    const launch = createGeminiAgent().launch(task(settings, { home: HOME, apiBaseUrl: RELAY }));
    assert.equal(launch.env.GOOGLE_GEMINI_BASE_URL, RELAY);
    const written = settingsOf(launch);
    assert.deepEqual(written.security, { auth: { selectedType: "gemini-api-key" } });
  });

  test("a relative home is refused rather than resolved against the workspace", () => {
    assert.throws(
      () => createGeminiAgent().launch(task(settings, { home: "agent-home" })),
      BadSettingsError,
    );
  });

  test("geminiTaskOf keeps what Gemini takes, the home as its config home", () => {
    assert.deepEqual(
      geminiTaskOf(
        task(settings, {
          home: HOME,
          apiBaseUrl: RELAY,
          resume: { sessionId: SESSION, message: "more" },
        }),
      ),
      {
        prompt: "do the task",
        model: "gemini-2.5-pro",
        maxTurns: 7,
        agentProgram: "/opt/gemini/bin/gemini",
        resume: { sessionId: SESSION, message: "more" },
        configHome: HOME,
        api: { baseUrl: RELAY },
      },
    );
  });
});

describe("each adapter keeps its own task's usage", () => {
  test("two codex adapters do not share turns or tokens; one adds up its own resumed runs", () => {
    const one = createCodexAgent();
    const two = createCodexAgent();
    assert.deepEqual(ofType(readRun(one, codexRun("thread-a", 100, 10)), "usage"), [
      { type: "usage", inputTokens: 100, outputTokens: 10 },
    ]);
    const other = readRun(two, codexRun("thread-b", 100, 10));
    assert.deepEqual(ofType(other, "usage"), [
      { type: "usage", inputTokens: 100, outputTokens: 10 },
    ]);
    assert.equal(ofType(other, "result")[0]?.turns, 1);
    // A resume of thread-a reports the thread's total so far: only the growth is new.
    const resumed = readRun(one, codexRun("thread-a", 250, 25));
    assert.deepEqual(ofType(resumed, "usage"), [
      { type: "usage", inputTokens: 250, outputTokens: 25 },
    ]);
    assert.equal(ofType(resumed, "result")[0]?.turns, 2);
  });

  test("two gemini adapters do not share turns or tokens; one sums its own runs", () => {
    const one = createGeminiAgent();
    const two = createGeminiAgent();
    readRun(one, geminiRun("s-1", 300, 30));
    const other = readRun(two, geminiRun("s-2", 300, 30));
    assert.deepEqual(ofType(other, "usage"), [
      { type: "usage", inputTokens: 300, outputTokens: 30 },
    ]);
    assert.equal(ofType(other, "result")[0]?.turns, 1);
    const resumed = readRun(one, geminiRun("s-1", 500, 50));
    assert.deepEqual(ofType(resumed, "usage"), [
      { type: "usage", inputTokens: 800, outputTokens: 80 },
    ]);
    assert.equal(ofType(resumed, "result")[0]?.turns, 2);
  });

  test("adapterFor gives every codex and gemini task a new adapter, and is resumable for both", () => {
    for (const name of ["codex", "gemini"] as const) {
      const a = adapterFor(name);
      assert.notEqual(a, adapterFor(name));
      assert.equal(a.resumable, true);
      assert.equal(a.conversation, undefined);
    }
    assert.equal(adapterFor("claude").resumable, undefined);
  });
});

describe("the codex and gemini outcomes use the run's last result", () => {
  const lastResult = {
    type: "result",
    ok: true,
    turns: 3,
    message: "the answer of the third turn",
  } as const;

  test("codex: the reader's result is the outcome, beside Codex's own last line", () => {
    const outcome = createCodexAgent().outcome({
      lastLine: { type: "turn.completed", usage: { input_tokens: 1, output_tokens: 1 } },
      exitCode: 0,
      lastResult,
    });
    assert.deepEqual(outcome.result, lastResult);
    assert.equal(outcome.synthesized, false);
    assert.equal(outcome.agentResult?.type, "turn.completed");
  });

  test("codex: a result that says ok from a run that exited 1 is a failure", () => {
    const outcome = createCodexAgent().outcome({ lastLine: undefined, exitCode: 1, lastResult });
    assert.equal(outcome.result.ok, false);
    assert.equal(outcome.result.turns, 3);
    assert.equal(outcome.synthesized, true);
    assert.equal(outcome.agentResult?.made_up_by, "warden");
  });

  test("codex: no result and a SIGTERM exit is a made-up failure that says so", () => {
    const outcome = createCodexAgent().outcome({ lastLine: undefined, exitCode: 143 });
    assert.equal(outcome.result.ok, false);
    assert.match(outcome.result.message ?? "", /SIGTERM/);
    assert.equal(outcome.synthesized, true);
  });

  test("gemini: the reader's result is the outcome when Gemini exited 0", () => {
    const outcome = createGeminiAgent().outcome({
      lastLine: { type: "result", status: "success", stats: {} },
      exitCode: 0,
      lastResult,
    });
    assert.deepEqual(outcome.result, lastResult);
    assert.equal(outcome.synthesized, false);
  });

  test("gemini: a result that says ok from a run that exited 1 is a failure with the turns kept", () => {
    const outcome = createGeminiAgent().outcome({ lastLine: undefined, exitCode: 1, lastResult });
    assert.equal(outcome.result.ok, false);
    assert.equal(outcome.result.turns, 3);
    assert.match(outcome.result.message ?? "", /after a successful result/);
    assert.equal(outcome.synthesized, true);
  });
});

describe("settings the codex and gemini agents do not take are refused", () => {
  const refused: readonly [string, Record<string, unknown>][] = [
    ["codex", { maxTurns: 5 }],
    ["codex", { approve: "always" }],
    ["codex", { allowedTools: ["Bash"] }],
    ["codex", { appendSystemPrompt: "be brief" }],
    ["gemini", { approve: "never" }],
    ["gemini", { disallowedTools: ["Bash"] }],
    ["gemini", { command: ["true"] }],
  ];
  for (const [agent, field] of refused) {
    const [name] = Object.keys(field);
    test(`${agent} with ${String(name)} is refused, naming the field`, () => {
      assert.throws(
        () => checkSettings({ agent, ...field }),
        (error: unknown) =>
          error instanceof BadSettingsError &&
          error.message.includes(`the ${agent} agent does not take ${String(name)}`),
      );
    });
  }

  test("codex takes agentProgram and model; gemini takes those and maxTurns", () => {
    assert.equal(
      checkSettings({ agent: "codex", agentProgram: "/bin/codex", model: "gpt-5" }).agent,
      "codex",
    );
    assert.equal(
      checkSettings({ agent: "gemini", agentProgram: "/bin/gemini", maxTurns: 3 }).maxTurns,
      3,
    );
  });

  test("every agent takes maxBudgetUSD: the host enforces it at the relay", () => {
    for (const agent of ["claude", "codex", "gemini"] as const) {
      assert.equal(checkSettings({ agent, maxBudgetUSD: 0.5 }).maxBudgetUSD, 0.5);
    }
  });
});

describe("every agent's profile and its adapter", () => {
  test("a profile says the agent takes messages exactly when its adapter converses or resumes", () => {
    for (const agent of AGENTS) {
      const adapter = adapterFor(agent);
      const adapterTakes = adapter.conversation !== undefined || adapter.resumable === true;
      assert.equal(AGENT_PROFILES[agent].takesMessages, adapterTakes, agent);
    }
  });
});
