// What running Codex CLI or Gemini CLI as a warden task costs: a one-turn task through warden
// (create, attach, share, the network gate and API relay, bwrap, the runner, the channel,
// receive, verify, record) against the same CLI run directly with the adapter's own launch
// (argv, environment, configuration files), both against the same scripted API on 127.0.0.1.
// Median of several runs.
//
//   npm run build && node --import tsx bench/codexGeminiOverhead.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { adapterFor, type AgentLaunch } from "../src/agents/index.js";
import { findAgentProgram } from "../src/host/index.js";
import { Tasks } from "../src/store/index.js";
import { startScriptedGemini } from "../test/support/scriptedGemini.js";
import { startScriptedOpenAI } from "../test/support/scriptedOpenAI.js";
import { makeRepo } from "../test/support/share.js";
import { printComparison, timeWardenTask } from "./support/agentTask.js";
import { pairedMedians } from "./support/pairedRuns.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 3 : 7;
const KEY = "bench-real-key";

/** A scripted API with one answer, and what the host's environment says of it. */
interface Api {
  readonly url: string;
  readonly hostEnv: Record<string, string>;
  readonly keyVariable: string;
  close(): Promise<void>;
}

const AGENTS = {
  codex: async (): Promise<Api> => {
    const api = await startScriptedOpenAI([{ kind: "text", text: "Nothing to do." }]);
    return {
      url: api.url,
      hostEnv: { OPENAI_BASE_URL: api.url, OPENAI_API_KEY: KEY },
      keyVariable: "OPENAI_API_KEY",
      close: () => api.close(),
    };
  },
  gemini: async (): Promise<Api> => {
    const api = await startScriptedGemini([{ kind: "text", text: "Nothing to do." }]);
    return {
      url: api.url,
      hostEnv: { GOOGLE_GEMINI_BASE_URL: api.url, GEMINI_API_KEY: KEY },
      keyVariable: "GEMINI_API_KEY",
      close: () => api.close(),
    };
  },
} as const;

type Agent = keyof typeof AGENTS;

const root = await mkdtemp(join(tmpdir(), "warden-bench-codex-gemini-"));
const { repo } = await makeRepo(join(root, "repo"));
const tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
const PATH = process.env.PATH ?? "/usr/bin:/bin";

/** Runs one launch as the runner would, to its exit; rejects unless it exits 0. */
async function runLaunch(launch: AgentLaunch, env: Record<string, string>): Promise<void> {
  for (const file of launch.files ?? []) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.text);
  }
  const [program, ...args] = launch.argv;
  const child = spawn(program, args, {
    cwd: repo,
    env: { ...launch.env, ...env },
    stdio: ["pipe", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    if (stderr.length < 8192) stderr += chunk;
  });
  child.stdin.end(launch.stdin);
  const [code] = (await once(child, "exit")) as [number | null];
  if (code !== 0) throw new Error(`the agent exited ${String(code)}: ${stderr}`);
}

async function direct(agent: Agent, program: string, run: number): Promise<number> {
  const api = await AGENTS[agent]();
  try {
    const home = join(root, `home-${agent}-${run}`);
    await mkdir(home, { recursive: true });
    // The direct run talks to the scripted API itself; Codex's provider then needs the /v1.
    const launch = adapterFor(agent).launch({
      settings: { agent, agentProgram: program },
      prompt: "do nothing",
      home,
      apiBaseUrl: api.url,
    });
    const started = performance.now();
    await runLaunch(launch, { PATH, HOME: home, [api.keyVariable]: KEY });
    return performance.now() - started;
  } finally {
    await api.close();
  }
}

async function throughWarden(agent: Agent): Promise<number> {
  const api = await AGENTS[agent]();
  try {
    return await timeWardenTask(tasks, repo, agent, { PATH, ...api.hostEnv });
  } finally {
    await api.close();
  }
}

try {
  for (const agent of Object.keys(AGENTS) as Agent[]) {
    const program = findAgentProgram(agent, undefined, { PATH });
    if (program === undefined) {
      console.log(`${agent}: skipped, its program is not installed (npm ci brings it)`);
      continue;
    }
    const measured = await pairedMedians(
      RUNS,
      (run) => direct(agent, program.path, run),
      () => throughWarden(agent),
    );
    printComparison(
      `a one-turn ${agent} run against a scripted API on loopback, median of ${RUNS} pairs:`,
      `${agent}, run directly (baseline)`,
      measured,
    );
  }
} finally {
  await rm(root, { recursive: true, force: true });
}
