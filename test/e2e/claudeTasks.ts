// What the whole-system tests with the real Claude Code CLI share: the built `warden` run as a
// child process with a scripted Messages API as the host's upstream (ANTHROPIC_BASE_URL) and a
// made-up real key (ANTHROPIC_API_KEY) that only the host ever holds; and a way to wait for an
// event of a running task without sleeping.
import { randomBytes } from "node:crypto";
import { Tasks, type TaskEvent } from "../../src/store/index.js";
import { claudeUnavailable } from "../support/claudeRun.js";
import type { ScriptedAnthropic } from "../support/scriptedAnthropic.js";
import { cleanEnv, NO_SYSTEM, runCli, type CliResult, type Workspace } from "./fixtures.js";
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
