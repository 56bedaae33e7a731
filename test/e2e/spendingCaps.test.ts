// Spending caps the host holds, with the real Claude Code, Codex and Gemini CLIs in the real
// sandbox: each scripted model keeps calling a tool, every answer with the same large usage, so
// the only thing that ends the task is the relay refusing the request after the cap. The task
// ends `budget`, its recorded cost is within one request of the cap, and `warden wait` exits 3.
// A parent's cap covers its two children, which stop when their sum reaches it.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, test } from "node:test";
import { claudeUnavailable } from "../support/claudeRun.js";
import { startScriptedAnthropic } from "../support/scriptedAnthropic.js";
import { startScriptedGemini } from "../support/scriptedGemini.js";
import { startScriptedOpenAI } from "../support/scriptedOpenAI.js";
import { skipWhen } from "../support/skipWhen.js";
import { cleanEnv, idOf, NO_SYSTEM, runCli, workspace, type Workspace } from "./fixtures.js";

/** The cap of each single task, in US dollars. */
const CAP_USD = 0.2;
/** More tool calls than any price in the table lets a task reach within CAP_USD. */
const SCRIPTED_CALLS = 40;

const BIN = (name: string): string =>
  fileURLToPath(new URL(`../../node_modules/.bin/${name}`, import.meta.url));

/** A scripted API whose model calls a tool on every request, with the same usage each time. */
interface Scripted {
  /** How many conversation requests reached it (each one forwarded by the relay). */
  conversationRequests(): number;
  env: Record<string, string>;
  /** warden's arguments that choose the agent, before any other. */
  args: string[];
  close(): Promise<void>;
}

interface AgentCase {
  readonly agent: "claude" | "codex" | "gemini";
  readonly unavailable: string | false;
  start(): Promise<Scripted>;
}

const CLAUDE: AgentCase = {
  agent: "claude",
  unavailable: claudeUnavailable() ?? false,
  async start() {
    const api = await startScriptedAnthropic(
      Array.from({ length: SCRIPTED_CALLS }, (_, i) => ({
        kind: "tool_use" as const,
        name: "Bash",
        input: { command: `echo step ${i}` },
        usage: { inputTokens: 3000, outputTokens: 100 },
      })),
    );
    return {
      conversationRequests: () => api.turns().length,
      env: {
        ANTHROPIC_BASE_URL: api.url,
        ANTHROPIC_API_KEY: `sk-ant-api03-e2e-${randomBytes(16).toString("hex")}`,
        CLAUDE_CODE_MAX_RETRIES: "2",
      },
      // A model the scripted listing names but the price table does not: warden prices it at
      // the API's highest prices, above Claude Code's own reckoning, so the host's cap is the
      // one that trips although Claude Code gets --max-budget-usd too.
      args: ["--agent", "claude", "--model", "claude-opus-5-5", "--env", "CLAUDE_CODE_MAX_RETRIES"],
      close: () => api.close(),
    };
  },
};

const CODEX: AgentCase = {
  agent: "codex",
  unavailable: existsSync(BIN("codex")) ? false : "no codex program: npm ci installs it",
  async start() {
    const api = await startScriptedOpenAI(
      Array.from({ length: SCRIPTED_CALLS }, (_, i) => ({
        kind: "command" as const,
        cmd: `echo step ${i}`,
        usage: { inputTokens: 5000, outputTokens: 200 },
      })),
    );
    return {
      conversationRequests: () => api.responseBodies().length,
      env: {
        OPENAI_BASE_URL: api.url,
        OPENAI_API_KEY: `sk-proj-e2e-${randomBytes(16).toString("hex")}`,
      },
      args: ["--agent", "codex"],
      close: () => api.close(),
    };
  },
};

const GEMINI: AgentCase = {
  agent: "gemini",
  unavailable: existsSync(BIN("gemini")) ? false : "no gemini program: npm ci installs it",
  async start() {
    const api = await startScriptedGemini(
      Array.from({ length: SCRIPTED_CALLS }, (_, i) => ({
        kind: "call" as const,
        name: "run_shell_command",
        args: { command: `echo step ${i}`, description: "run it" },
        usage: { inputTokens: 10_000, outputTokens: 200 },
      })),
    );
    return {
      conversationRequests: () => api.turnBodies().length,
      env: {
        GOOGLE_GEMINI_BASE_URL: api.url,
        GEMINI_API_KEY: `AIza-e2e-${randomBytes(16).toString("hex")}`,
      },
      args: ["--agent", "gemini"],
      close: () => api.close(),
    };
  },
};

interface Shown {
  state: string;
  stoppedBy: string | null;
  error?: string;
  spend?: { costUSD: number; inputTokens: number };
}

async function show(ws: Workspace, id: string): Promise<Shown> {
  const shown = await runCli(ws.dataDir, ["show", id, "--json"]);
  assert.equal(shown.code, 0, shown.stderr);
  return JSON.parse(shown.stdout) as Shown;
}

/**
 * The recorded cost reached `cap` and passed it by less than one request: every conversation
 * request used the same tokens, so cost / requests is at least one request's price (the side
 * requests some agents make cost little, and only add to it).
 */
function assertWithinOneRequest(cost: number, cap: number, requests: number): string {
  assert.ok(requests >= 2, `only ${requests} request reached the API before the cap`);
  assert.ok(requests < SCRIPTED_CALLS, "the script ran out: nothing stopped the agent");
  const perRequest = cost / requests;
  assert.ok(cost >= cap - 1e-9, `the recorded cost ${cost} is below the cap ${cap}`);
  assert.ok(
    cost < cap + perRequest,
    `the recorded cost ${cost} passes the cap ${cap} by more than a request (${perRequest})`,
  );
  return `cost $${cost.toFixed(4)} for a cap of $${cap}, ${requests} requests of about $${perRequest.toFixed(4)}`;
}

for (const agentCase of [CLAUDE, CODEX, GEMINI]) {
  const skip = NO_SYSTEM ?? (skipWhen(agentCase.unavailable) || undefined);

  describe(`a ${agentCase.agent} task with --max-budget-usd`, { skip }, () => {
    let ws: Workspace;
    let api: Scripted;
    before(async () => {
      ws = await workspace();
      api = await agentCase.start();
    });
    after(async () => {
      await api.close();
      await ws.cleanup();
    });

    test("ends stopped by budget once the relay refuses, its cost within one request of the cap; wait exits 3", async (t) => {
      const env = cleanEnv(api.env);
      const run = await runCli(
        ws.dataDir,
        [
          "run",
          ...api.args,
          "--repo",
          ws.repo,
          "--prompt",
          "keep running steps",
          "--max-budget-usd",
          String(CAP_USD),
          "--json",
        ],
        { env },
      );
      assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
      const ended = JSON.parse(run.stdout) as { id: string; stoppedBy: string; error: string };
      assert.equal(ended.stoppedBy, "budget", run.stdout);
      assert.match(ended.error, /the task has spent \$0\.\d{4}, its budget of \$0\.2000/);
      const shown = await show(ws, ended.id);
      t.diagnostic(JSON.stringify(shown.spend));
      const cost = shown.spend?.costUSD ?? NaN;
      t.diagnostic(assertWithinOneRequest(cost, CAP_USD, api.conversationRequests()));

      const wait = await runCli(ws.dataDir, ["wait", ended.id], { env });
      assert.equal(wait.code, 3, wait.stderr);
      const listed = await runCli(ws.dataDir, ["ls", "--json"], { env });
      const row = (JSON.parse(listed.stdout) as { id: string; costUSD?: number }[]).find(
        (t) => t.id === ended.id,
      );
      assert.equal(row?.costUSD, cost, "ls shows the relay's measure");
      const watch = await runCli(ws.dataDir, ["watch", ended.id], { env });
      assert.match(watch.stdout, /cost so far \$0\.\d{4} \(\d+ tokens in/);
      assert.match(watch.stdout, /its budget of \$0\.2000; the task ends/);
    });
  });
}

describe(
  "a parent's cap over two children",
  { skip: NO_SYSTEM ?? (skipWhen(CODEX.unavailable) || undefined) },
  () => {
    let ws: Workspace;
    let api: Scripted;
    before(async () => {
      ws = await workspace();
      api = await CODEX.start();
    });
    after(async () => {
      await api.close();
      await ws.cleanup();
    });

    test("two children, each with room of its own, stop when their sum reaches the parent's cap", async (t) => {
      const env = cleanEnv(api.env);
      const create = (extra: Record<string, string>, cap: number) =>
        runCli(
          ws.dataDir,
          [
            "create",
            ...api.args,
            "--repo",
            ws.repo,
            "--prompt",
            "keep running steps",
            "--max-budget-usd",
            String(cap),
          ],
          { env: { ...env, ...extra } },
        );
      const parent = idOf(await create({}, CAP_USD));
      // A task made from inside another (WARDEN_TASK_ID, as the sandbox sets it) is its child.
      const children = [
        idOf(await create({ WARDEN_TASK_ID: parent }, 10)),
        idOf(await create({ WARDEN_TASK_ID: parent }, 10)),
      ];
      const runs = await Promise.all(
        children.map((id) => runCli(ws.dataDir, ["start", id, "--json"], { env })),
      );
      let sum = 0;
      for (const [i, run] of runs.entries()) {
        assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
        const ended = JSON.parse(run.stdout) as { stoppedBy: string; error: string };
        assert.equal(ended.stoppedBy, "budget");
        assert.match(ended.error, new RegExp(`task ${parent} and the tasks under it have spent`));
        sum += (await show(ws, children[i] ?? "")).spend?.costUSD ?? NaN;
      }
      // Each child may have had one request in flight when the sum reached the cap, and one more
      // may pass while the other's last answer is still being written (a durable write) or
      // before its record is read again (SPEND_LIMITS.treeReadMs): two a child at most, unless
      // the disk takes longer to write a record than the agent takes to make a request.
      const requests = api.conversationRequests();
      assert.ok(requests < SCRIPTED_CALLS, "the script ran out: nothing stopped the children");
      assert.ok(sum >= CAP_USD - 1e-9, `the children spent ${sum}, below the parent's cap`);
      assert.ok(sum < CAP_USD + 4 * (sum / requests) + 1e-9, `the children spent ${sum}`);
      t.diagnostic(
        `children spent $${sum.toFixed(4)} of the parent's $${CAP_USD} in ${requests} requests`,
      );
      for (const id of children) {
        assert.equal((await runCli(ws.dataDir, ["wait", id], { env })).code, 3);
      }
    });
  },
);

describe(
  "the daily cap of the user's config file",
  { skip: NO_SYSTEM ?? (skipWhen(CODEX.unavailable) || undefined) },
  () => {
    let ws: Workspace;
    let api: Scripted;
    before(async () => {
      ws = await workspace();
      api = await CODEX.start();
    });
    after(async () => {
      await api.close();
      await ws.cleanup();
    });

    test("a task without a cap of its own stops when the data directory's day reaches dailyBudgetUsd", async () => {
      const config = join(ws.root, "config");
      await mkdir(join(config, "warden"), { recursive: true });
      await writeFile(join(config, "warden", "config.yaml"), "dailyBudgetUsd: 0.1\n");
      const env = cleanEnv({ ...api.env, XDG_CONFIG_HOME: config });
      const run = await runCli(
        ws.dataDir,
        ["run", ...api.args, "--repo", ws.repo, "--prompt", "keep running steps", "--json"],
        { env },
      );
      assert.equal(run.code, 3, `${run.stdout}\n${run.stderr}`);
      const ended = JSON.parse(run.stdout) as { id: string; stoppedBy: string; error: string };
      assert.equal(ended.stoppedBy, "budget");
      assert.match(ended.error, /spent \$0\.\d{4} today \(UTC\), the daily budget of \$0\.1000/);
      const cost = (await show(ws, ended.id)).spend?.costUSD ?? NaN;
      assertWithinOneRequest(cost, 0.1, api.conversationRequests());
    });
  },
);
