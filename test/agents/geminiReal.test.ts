// The gemini adapter against the real Gemini CLI, talking to a scripted Gemini API on
// 127.0.0.1 through GOOGLE_GEMINI_BASE_URL (as the API relay would be). Gemini CLI is a
// dev dependency of warden, pinned; WARDEN_TEST_GEMINI_BIN may name another build of it.
import { strict as assert } from "node:assert";
import { fileURLToPath } from "node:url";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import type { AgentLaunch } from "../../src/agents/adapter.js";
import type { AgentEvent } from "../../src/agents/agentEvent.js";
import {
  GEMINI_SETTINGS_FILE,
  geminiLaunch,
  geminiSettings,
  type GeminiTask,
} from "../../src/agents/gemini/launch.js";
import { GeminiLedger } from "../../src/agents/gemini/ledger.js";
import { geminiOutcome, type GeminiOutcome } from "../../src/agents/gemini/outcome.js";
import { geminiStreamReader } from "../../src/agents/gemini/stream.js";
import { runLaunch } from "../support/runLaunch.js";
import { startScriptedGemini, type ScriptedGeminiTurn } from "../support/scriptedGemini.js";
import { skipWhen } from "../support/skipWhen.js";

/** The pinned dev dependency, unless WARDEN_TEST_GEMINI_BIN names another build of the CLI. */
const BIN =
  process.env.WARDEN_TEST_GEMINI_BIN?.trim() ||
  fileURLToPath(new URL("../../node_modules/.bin/gemini", import.meta.url));
const PROGRAM = resolve(BIN);
const skip = skipWhen(
  existsSync(PROGRAM)
    ? false
    : `no gemini program at ${PROGRAM}: npm ci installs @google/gemini-cli`,
);

/** The key the sandbox would hold: a placeholder the relay swaps for the real one. */
const PLACEHOLDER_KEY = "warden-placeholder-gemini-test";

/** How long one Gemini run may take here before the test gives up on it. */
const RUN_TIMEOUT_MS = 60_000;

let scratch = "";
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), "warden-gemini-real-"));
});
after(async () => {
  await rm(scratch, { recursive: true, force: true });
});

interface Place {
  readonly cwd: string;
  readonly home: string;
  readonly configHome: string;
  /** The CLI's TMPDIR, as the runner gives it one: it writes its error reports there. */
  readonly tmp: string;
}

async function place(name: string): Promise<Place> {
  const root = join(scratch, name);
  const paths = {
    cwd: join(root, "work"),
    home: join(root, "home"),
    configHome: join(root, "gemini"),
    tmp: join(root, "tmp"),
  };
  for (const dir of Object.values(paths)) await mkdir(dir, { recursive: true });
  return paths;
}

/**
 * Writes the adapter's settings file as the runner would. `extra` adds what only a test wants
 * (one attempt per API call, so an error ends the run at once instead of after ten backoffs).
 */
async function writeSettings(at: Place, task: GeminiTask, extra: Record<string, unknown> = {}) {
  const settings = JSON.parse(geminiSettings(task)) as Record<string, Record<string, unknown>>;
  settings.general = { ...settings.general, ...extra };
  const file = join(at.configHome, GEMINI_SETTINGS_FILE);
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(settings));
}

interface Run {
  readonly events: AgentEvent[];
  readonly outcome: GeminiOutcome;
  readonly stderr: string;
}

/** Runs one launch plan as the runner would: its argv, its env, its stdin, stdout read live. */
async function run(launch: AgentLaunch, at: Place, ledger: GeminiLedger): Promise<Run> {
  const ran = await runLaunch(launch, {
    cwd: at.cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: at.home,
      TMPDIR: at.tmp,
      LANG: "C.UTF-8",
      GEMINI_API_KEY: PLACEHOLDER_KEY,
    },
    reader: geminiStreamReader(ledger),
    timeoutMs: RUN_TIMEOUT_MS,
  });
  return { events: ran.events, outcome: geminiOutcome(ran, ran.lastResult), stderr: ran.stderr };
}

function ofType<T extends AgentEvent["type"]>(events: AgentEvent[], type: T) {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** The user texts of one request to the model, in order. */
function userTexts(body: unknown): string[] {
  const contents = (body as { contents?: unknown } | undefined)?.contents;
  if (!Array.isArray(contents)) return [];
  const texts: string[] = [];
  for (const content of contents as { role?: unknown; parts?: unknown }[]) {
    if (content.role !== "user" || !Array.isArray(content.parts)) continue;
    for (const part of content.parts as { text?: unknown }[]) {
      if (typeof part.text === "string") texts.push(part.text);
    }
  }
  return texts;
}

function task(at: Place, api: string, rest: Partial<GeminiTask> & { prompt: string }): GeminiTask {
  return {
    model: "gemini-2.5-pro",
    agentProgram: PROGRAM,
    configHome: at.configHome,
    api: { baseUrl: api },
    ...rest,
  };
}

async function runOnce(
  name: string,
  script: readonly ScriptedGeminiTurn[],
  rest: Partial<GeminiTask> & { prompt: string },
  extra: Record<string, unknown> = {},
) {
  const api = await startScriptedGemini(script);
  try {
    const at = await place(name);
    const plan = task(at, api.url, rest);
    await writeSettings(at, plan, extra);
    const result = await run(geminiLaunch(plan), at, new GeminiLedger());
    return { ...result, api, at };
  } finally {
    await api.close();
  }
}

describe("the gemini adapter with the real Gemini CLI", { skip }, () => {
  test("a task whose model runs a command writes the file and reads as warden's events", async () => {
    const { events, outcome, stderr, api, at } = await runOnce(
      "command",
      [
        {
          kind: "call",
          text: "I will run a command.",
          name: "run_shell_command",
          args: { command: "echo hello > out.txt && cat out.txt", description: "Write hello" },
        },
        { kind: "text", text: "Done. Wrote out.txt." },
      ],
      { prompt: "create out.txt" },
    );
    assert.equal(outcome.result.ok, true, `${JSON.stringify(outcome)}\n${stderr}`);
    assert.equal(outcome.result.message, "Done. Wrote out.txt.");
    assert.equal(outcome.result.turns, 2);
    assert.equal(await readFile(join(at.cwd, "out.txt"), "utf8"), "hello\n");
    assert.deepEqual(
      ofType(events, "tool_use").map((u) => [u.name, u.summary]),
      [["run_shell_command", "echo hello > out.txt && cat out.txt"]],
    );
    assert.deepEqual(
      ofType(events, "tool_result").map((r) => [r.ok, r.summary]),
      [[true, "hello"]],
    );
    assert.deepEqual(ofType(events, "usage"), [
      { type: "usage", inputTokens: 200, outputTokens: 40 },
    ]);
    const turns = api.requests.filter((r) => r.path.includes(":streamGenerateContent"));
    assert.equal(turns.length, 2);
    for (const request of turns) {
      assert.equal(request.headers["x-goog-api-key"], PLACEHOLDER_KEY);
    }
  });

  test("a further message resumes the session, and usage adds up across the runs", async () => {
    const api = await startScriptedGemini([
      { kind: "text", text: "First answer.", usage: { inputTokens: 300, outputTokens: 30 } },
      { kind: "text", text: "Second answer.", usage: { inputTokens: 500, outputTokens: 50 } },
    ]);
    try {
      const at = await place("resume");
      const ledger = new GeminiLedger();
      const first = task(at, api.url, { prompt: "first message" });
      await writeSettings(at, first);
      const one = await run(geminiLaunch(first), at, ledger);
      const [session] = ofType(one.events, "session");
      assert.ok(session?.sessionId !== undefined, one.stderr);
      const resumed = task(at, api.url, {
        prompt: "first message",
        resume: { sessionId: session.sessionId, message: "--second message" },
      });
      const two = await run(geminiLaunch(resumed), at, ledger);
      assert.equal(two.outcome.result.ok, true, two.stderr);
      assert.equal(two.outcome.result.message, "Second answer.");
      assert.equal(two.outcome.result.turns, 2);
      // The resumed request carries the first exchange, then the new message as text.
      const texts = userTexts(api.turnBodies()[1]);
      assert.ok(
        texts.some((t) => t.includes("first message")),
        JSON.stringify(texts),
      );
      assert.match(texts.at(-1) ?? "", /^--second message/);
      assert.deepEqual(ofType(two.events, "usage"), [
        { type: "usage", inputTokens: 800, outputTokens: 80 },
      ]);
    } finally {
      await api.close();
    }
  });

  test("API errors end the run with the HTTP status mod 256 as the exit code", async () => {
    for (const [status, exitCode] of [
      [400, 144],
      [429, 173],
      [500, 244],
    ] as const) {
      const { outcome, stderr } = await runOnce(
        `status-${status}`,
        [{ kind: "error", status, message: `scripted says ${status}` }],
        { prompt: "do it" },
        { maxAttempts: 1 },
      );
      assert.equal(outcome.exit.code, exitCode, stderr);
      assert.equal(outcome.exit.httpStatus, status);
      assert.equal(outcome.result.ok, false);
      assert.match(outcome.result.message ?? "", new RegExp(`scripted says ${status}`));
      assert.equal(outcome.synthesized, false);
    }
  });

  test("maxTurns bounds the run: exit 53 and stoppedBy turns", async () => {
    const { outcome, stderr } = await runOnce(
      "turns",
      [
        {
          kind: "call",
          name: "run_shell_command",
          args: { command: "true", description: "nothing" },
        },
        { kind: "text", text: "never reached" },
      ],
      { prompt: "do it", maxTurns: 1 },
    );
    assert.equal(outcome.exit.code, 53, stderr);
    assert.equal(outcome.result.stoppedBy, "turns");
    assert.equal(outcome.result.ok, false);
    assert.equal(outcome.result.turns, 1);
  });
});
