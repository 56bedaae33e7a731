// The codex adapter against the real Codex CLI, talking to a scripted Responses API on
// 127.0.0.1 through a model provider of warden's (as the API relay would be). Codex is a
// dev dependency of warden, pinned; WARDEN_TEST_CODEX_BIN may name another build of it.
import { strict as assert } from "node:assert";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AgentLaunch } from "../../src/agents/adapter.js";
import type { AgentEvent } from "../../src/agents/agentEvent.js";
import { codexLaunch, type CodexTask } from "../../src/agents/codex/launch.js";
import { CodexLedger } from "../../src/agents/codex/ledger.js";
import { codexOutcome, type CodexOutcome } from "../../src/agents/codex/outcome.js";
import { codexStreamReader } from "../../src/agents/codex/stream.js";
import { runLaunch } from "../support/runLaunch.js";
import { startScriptedOpenAI, type ScriptedResponse } from "../support/scriptedOpenAI.js";
import { skipWhen } from "../support/skipWhen.js";

/** The pinned dev dependency, unless WARDEN_TEST_CODEX_BIN names another build of the CLI. */
const BIN =
  process.env.WARDEN_TEST_CODEX_BIN?.trim() ||
  fileURLToPath(new URL("../../node_modules/.bin/codex", import.meta.url));
const PROGRAM = resolve(BIN);
const skip = skipWhen(
  existsSync(PROGRAM) ? false : `no codex program at ${PROGRAM}: npm ci installs @openai/codex`,
);

/** The key the sandbox would hold: a placeholder the relay swaps for the real one. */
const PLACEHOLDER_KEY = "sk-warden-placeholder-codex-test";
const KEY_VARIABLE = "WARDEN_TEST_OPENAI_KEY";

/** How long one Codex run may take here before the test gives up on it. */
const RUN_TIMEOUT_MS = 60_000;

let scratch = "";
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "warden-codex-real-"));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface Run {
  readonly events: AgentEvent[];
  readonly outcome: CodexOutcome;
  readonly stderr: string;
}

/** Runs one launch plan as the runner would: its argv, its env, its stdin, stdout read live. */
async function run(launch: AgentLaunch, cwd: string, home: string, ledger: CodexLedger) {
  const ran = await runLaunch(launch, {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      LANG: "C.UTF-8",
      [KEY_VARIABLE]: PLACEHOLDER_KEY,
    },
    reader: codexStreamReader(ledger),
    timeoutMs: RUN_TIMEOUT_MS,
  });
  const outcome = codexOutcome(ran, ran.lastResult);
  return { events: ran.events, outcome, stderr: ran.stderr } satisfies Run;
}

async function workspace(name: string): Promise<{ cwd: string; home: string }> {
  const cwd = join(scratch, name, "work");
  const home = join(scratch, name, "home");
  await mkdir(cwd, { recursive: true });
  await mkdir(home, { recursive: true });
  return { cwd, home };
}

function ofType<T extends AgentEvent["type"]>(events: AgentEvent[], type: T) {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** The user texts Codex sent the model in one request. */
function userTexts(body: unknown): string[] {
  const input = (body as { input?: unknown } | undefined)?.input;
  if (!Array.isArray(input)) return [];
  const texts: string[] = [];
  for (const item of input as { role?: unknown; content?: unknown }[]) {
    if (item.role !== "user" || !Array.isArray(item.content)) continue;
    for (const part of item.content as { text?: unknown }[]) {
      if (typeof part.text === "string") texts.push(part.text);
    }
  }
  return texts;
}

function task(api: string, rest: Partial<CodexTask> & { prompt: string }): CodexTask {
  return {
    model: "gpt-5-codex",
    agentProgram: PROGRAM,
    api: { baseUrl: api, keyVariable: KEY_VARIABLE },
    ...rest,
  };
}

describe("the codex adapter with the real Codex CLI", { skip }, () => {
  test("a task whose model runs a command writes the file and reads as warden's events", async () => {
    const script: ScriptedResponse[] = [
      { kind: "command", cmd: "echo hello > out.txt && cat out.txt" },
      { kind: "text", text: "Done. Wrote out.txt." },
    ];
    const api = await startScriptedOpenAI(script);
    try {
      const { cwd, home } = await workspace("command");
      const ledger = new CodexLedger();
      const { events, outcome, stderr } = await run(
        codexLaunch(task(api.url, { prompt: "create out.txt" })),
        cwd,
        home,
        ledger,
      );
      assert.equal(outcome.result.ok, true, `${JSON.stringify(outcome)}\n${stderr}`);
      assert.equal(outcome.result.message, "Done. Wrote out.txt.");
      assert.equal(await readFile(join(cwd, "out.txt"), "utf8"), "hello\n");
      const [use] = ofType(events, "tool_use");
      assert.ok(use !== undefined);
      assert.equal(use.name, "shell");
      assert.match(use.summary, /echo hello > out\.txt/);
      assert.deepEqual(
        ofType(events, "tool_result").map((r) => [r.ok, r.summary]),
        [[true, "hello"]],
      );
      assert.deepEqual(ofType(events, "usage"), [
        { type: "usage", inputTokens: 200, outputTokens: 40 },
      ]);
      for (const request of api.requests) {
        assert.equal(request.headers.authorization, `Bearer ${PLACEHOLDER_KEY}`);
      }
      assert.deepEqual(userTexts(api.responseBodies()[0]).at(-1), "create out.txt");
    } finally {
      await api.close();
    }
  });

  test("a further message resumes the session, and usage adds up across the runs", async () => {
    const api = await startScriptedOpenAI([
      { kind: "text", text: "First answer.", usage: { inputTokens: 300, outputTokens: 30 } },
      { kind: "text", text: "Second answer.", usage: { inputTokens: 500, outputTokens: 50 } },
    ]);
    try {
      const { cwd, home } = await workspace("resume");
      const ledger = new CodexLedger();
      const first = await run(
        codexLaunch(task(api.url, { prompt: "first message" })),
        cwd,
        home,
        ledger,
      );
      const [session] = ofType(first.events, "session");
      assert.ok(session?.sessionId !== undefined, first.stderr);
      const second = await run(
        codexLaunch(
          task(api.url, {
            prompt: "first message",
            resume: { sessionId: session.sessionId, message: "--second message" },
          }),
        ),
        cwd,
        home,
        ledger,
      );
      assert.equal(second.outcome.result.ok, true, second.stderr);
      assert.equal(second.outcome.result.message, "Second answer.");
      assert.equal(second.outcome.result.turns, 2);
      // The resumed request carries the first exchange and then the new message, as text.
      const texts = userTexts(api.responseBodies()[1]);
      assert.ok(texts.includes("first message"), JSON.stringify(texts));
      assert.equal(texts.at(-1), "--second message");
      assert.deepEqual(ofType(second.events, "usage"), [
        { type: "usage", inputTokens: 800, outputTokens: 80 },
      ]);
    } finally {
      await api.close();
    }
  });

  test("an API error ends the run failed, exit 1, with the API's message", async () => {
    const api = await startScriptedOpenAI([
      { kind: "error", status: 400, message: "the scripted API says no" },
    ]);
    try {
      const { cwd, home } = await workspace("error");
      const { outcome } = await run(
        codexLaunch(task(api.url, { prompt: "do it" })),
        cwd,
        home,
        new CodexLedger(),
      );
      assert.equal(outcome.result.ok, false);
      assert.match(outcome.result.message ?? "", /the scripted API says no/);
      assert.equal(outcome.synthesized, false);
      assert.equal((outcome.agentResult as { type?: unknown }).type, "turn.failed");
    } finally {
      await api.close();
    }
  });

  test("a prompt that looks like an option reaches the model as text", async () => {
    const api = await startScriptedOpenAI([{ kind: "text", text: "ok" }]);
    try {
      const { cwd, home } = await workspace("dash");
      const { outcome } = await run(
        codexLaunch(task(api.url, { prompt: "--version -h" })),
        cwd,
        home,
        new CodexLedger(),
      );
      assert.equal(outcome.result.ok, true);
      assert.equal(userTexts(api.responseBodies()[0]).at(-1), "--version -h");
      assert.ok(isAbsolute(PROGRAM));
    } finally {
      await api.close();
    }
  });
});
