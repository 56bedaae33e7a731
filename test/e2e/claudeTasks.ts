// What the whole-system tests with the real Claude Code CLI share: the built `warden` run as a
// child process with a scripted Messages API as the host's upstream (ANTHROPIC_BASE_URL) and a
// made-up real key (ANTHROPIC_API_KEY) that only the host ever holds; and a way to wait for an
// event of a running task without sleeping.
import { randomBytes } from "node:crypto";
import { after, afterEach, before } from "node:test";
import { Tasks, type TaskEvent } from "../../src/store/index.js";
import { claudeUnavailable } from "../support/claudeRun.js";
import {
  startScriptedAnthropic,
  type ScriptedAnthropic,
  type ScriptedTurn,
} from "../support/scriptedAnthropic.js";
import {
  cleanEnv,
  NO_SYSTEM,
  runCli,
  workspace,
  type CliResult,
  type Workspace,
} from "./fixtures.js";
import { skipWhen, type SkipReason } from "../support/skipWhen.js";

/** Why these tests cannot run here, or undefined when they can. */
export const NO_CLAUDE_SYSTEM: SkipReason | undefined =
  NO_SYSTEM ?? (skipWhen(claudeUnavailable()) || undefined);

/** The host's key: shaped like a real one, made up for this test process. */
export const REAL_KEY = `sk-ant-api03-e2e-${randomBytes(16).toString("hex")}`;

/**
 * The environment of `warden`: the scripted API as the relay's upstream, the real key, and
 * Claude Code's retries cut to 2 (passed in with --env), so a 500 fails in about a second.
 */
export function claudeEnv(api: ScriptedAnthropic): Record<string, string> {
  return cleanEnv({
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: REAL_KEY,
    CLAUDE_CODE_MAX_RETRIES: "2",
  });
}

/** `warden run` of a Claude Code task on the workspace's repository, to its end (or --detach). */
export function runClaude(
  ws: Workspace,
  api: ScriptedAnthropic,
  prompt: string,
  args: string[] = [],
): Promise<CliResult> {
  return runCli(
    ws.dataDir,
    ["run", "--repo", ws.repo, "--prompt", prompt, "--env", "CLAUDE_CODE_MAX_RETRIES", ...args],
    { env: claudeEnv(api) },
  );
}

/** Any other verb, with the same environment. */
export function warden(ws: Workspace, api: ScriptedAnthropic, args: string[]): Promise<CliResult> {
  return runCli(ws.dataDir, args, { env: claudeEnv(api) });
}

/** Resolves with the first event of the task that matches, following the events as they come. */
export async function waitForEvent(
  ws: Workspace,
  id: string,
  match: (event: TaskEvent) => boolean,
  timeoutMs = 60_000,
): Promise<TaskEvent> {
  const tasks = await Tasks.open({ dataDir: ws.dataDir, env: {} });
  const signal = AbortSignal.timeout(timeoutMs);
  for await (const event of tasks.watch(id, { signal })) {
    if (match(event)) return event;
  }
  throw new Error(
    signal.aborted
      ? `no such event of task ${id} within ${timeoutMs} ms`
      : `task ${id} finished without such an event`,
  );
}

/** An agent event of one kind (the channel records them as type `agent`, kind = its type). */
export function agentEvent(kind: string): (event: TaskEvent) => boolean {
  return (event) => event.type === "agent" && event.kind === kind;
}

/** Every text of a request's messages, joined: what the model was shown. */
export function shownToModel(body: unknown): string {
  return JSON.stringify((body as { messages?: unknown } | undefined)?.messages ?? []);
}

/** What the tests of one describe share: a workspace, and each test's own scripted API. */
export interface ClaudeSuite {
  /** The describe's workspace, made before its first test and removed after its last. */
  readonly ws: Workspace;
  /** The scripted API the running test started; it is closed when the test ends. */
  readonly api: ScriptedAnthropic;
  /** Starts the running test's scripted API. */
  readonly scripted: (turns: ScriptedTurn[]) => Promise<ScriptedAnthropic>;
}

/** Registers the hooks of a ClaudeSuite in the describe it is called in. */
export function claudeSuite(): ClaudeSuite {
  let ws: Workspace | undefined;
  let api: ScriptedAnthropic | undefined;
  before(async () => {
    ws = await workspace();
  });
  afterEach(async () => {
    await api?.close();
    api = undefined;
  });
  after(async () => {
    await ws?.cleanup();
  });
  return {
    get ws(): Workspace {
      if (ws === undefined) throw new Error("the suite's workspace is made in its before hook");
      return ws;
    },
    get api(): ScriptedAnthropic {
      if (api === undefined) throw new Error("this test started no scripted API");
      return api;
    },
    scripted: async (turns) => {
      api = await startScriptedAnthropic(turns);
      return api;
    },
  };
}
