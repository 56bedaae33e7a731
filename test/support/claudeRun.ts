// Runs the real Claude Code CLI (the pinned dev dependency) the way the runner does: the
// claude adapter's argv and environment, the placeholder key from the settings, the base URL
// of a scripted Messages API, HOME in a temporary directory. Its stdout goes through the
// adapter's stream reader as it arrives, so a test can wait for an event instead of sleeping.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AgentEvent, AgentOutcome, PermissionPromptTool } from "../../src/agents/index.js";
import { claudeAgent } from "../../src/agents/claude/index.js";
import { agentEnvironment } from "../../src/guest/agentEnvironment.js";
import { checkSettings, type Settings } from "../../src/protocol/index.js";

/** The CLI npm installed for the tests. */
export const CLAUDE_BIN = fileURLToPath(new URL("../../node_modules/.bin/claude", import.meta.url));

/** Why the real CLI cannot run here, or undefined when it can. */
export function claudeUnavailable(): string | undefined {
  if (!existsSync(CLAUDE_BIN)) {
    return `${CLAUDE_BIN} is missing: npm ci installs @anthropic-ai/claude-code`;
  }
  const probe = spawnSync(CLAUDE_BIN, ["--version"], { encoding: "utf8", timeout: 30_000 });
  if (probe.status !== 0) {
    return `claude --version failed: ${probe.error?.message ?? probe.stderr.slice(0, 200)}`;
  }
  return undefined;
}

/** The placeholder key the host puts into the settings; the scripted API expects it. */
export const PLACEHOLDER_KEY = "sk-ant-warden-placeholder-0000";

export interface ClaudeRunOptions {
  /** The Messages API to use, as ANTHROPIC_BASE_URL (the runner's egress variable). */
  readonly apiUrl: string;
  readonly cwd: string;
  readonly prompt: string;
  /** Settings for the claude agent; agentProgram defaults to the installed CLI. */
  readonly settings?: Omit<Settings, "agent">;
  /** The permission prompt tool, as the runner offers it for `approve: "prompt"`. */
  readonly permissionPromptTool?: PermissionPromptTool;
}

/** The test's permission prompt tool: an MCP server that answers every request with `decision`. */
export function testPermissionTool(decision: "allow" | "deny"): PermissionPromptTool {
  const server = {
    type: "stdio",
    command: process.execPath,
    args: [fileURLToPath(new URL("claudePermissionTool.js", import.meta.url))],
    env: { PERMISSION_DECISION: decision },
  };
  return {
    mcpConfig: JSON.stringify({ mcpServers: { warden: server } }),
    tool: "mcp__warden__approve",
  };
}

export interface ClaudeExit {
  readonly exitCode: number;
  readonly stderr: string;
  /** The last stdout line parsed as a JSON object, as result.agentResult holds it. */
  readonly lastLine: Record<string, unknown> | undefined;
  readonly outcome: AgentOutcome;
}

export interface ClaudeRun {
  readonly events: readonly AgentEvent[];
  readonly lines: readonly string[];
  /** Resolves with the first event (past or future) that matches. */
  waitForEvent(match: (e: AgentEvent) => boolean, timeoutMs?: number): Promise<AgentEvent>;
  /** Sends one more user message, as the runner does at a turn boundary. */
  send(text: string): void;
  closeStdin(): void;
  kill(signal: NodeJS.Signals): void;
  readonly exited: Promise<ClaudeExit>;
}

function parseObject(line: string | undefined): Record<string, unknown> | undefined {
  if (line === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Starts the CLI; stdin stays open until the test closes it, as the runner would keep it. */
export async function startClaude(options: ClaudeRunOptions): Promise<ClaudeRun> {
  const settings = checkSettings({
    agent: "claude",
    agentProgram: CLAUDE_BIN,
    ...options.settings,
    env: { ANTHROPIC_API_KEY: PLACEHOLDER_KEY, ...options.settings?.env },
  });
  const launch = claudeAgent.launch(
    options.permissionPromptTool === undefined
      ? { settings, prompt: options.prompt }
      : { settings, prompt: options.prompt, permissionPromptTool: options.permissionPromptTool },
  );
  const home = await mkdtemp(join(tmpdir(), "warden-claude-home-"));
  const env = agentEnvironment({
    runner: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, LANG: "C.UTF-8" },
    pass: [],
    adapter: launch.env,
    settings,
    egress: { ANTHROPIC_BASE_URL: options.apiUrl },
    metadataUrl: "http://127.0.0.1:9/unused",
    tmpdir: home,
    marker: "claude-real-test",
    fallbackHome: home,
  });
  const [program, ...args] = launch.argv;
  const child = spawn(program, args, { cwd: options.cwd, env, stdio: ["pipe", "pipe", "pipe"] });
  // A CLI that exits early closes its stdin; a late write must not crash the test process.
  child.stdin.on("error", () => undefined);
  child.stdin.write(launch.stdin);

  const reader = claudeAgent.readStream();
  const events: AgentEvent[] = [];
  const lines: string[] = [];
  const waiters = new Set<(e: AgentEvent) => void>();
  const take = (found: AgentEvent[]) => {
    for (const event of found) {
      events.push(event);
      for (const waiter of [...waiters]) waiter(event);
    }
  };
  let pending = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line !== "") lines.push(line);
      take(reader.line(line));
      newline = pending.indexOf("\n");
    }
  });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => {
    stderr += chunk;
  });

  const exited = new Promise<ClaudeExit>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (pending !== "") {
        lines.push(pending);
        take(reader.line(pending));
      }
      take(reader.end());
      void rm(home, { recursive: true, force: true });
      const exitCode = code ?? 128 + (signal === null ? 0 : constants.signals[signal]);
      const lastLine = parseObject(lines.at(-1));
      resolve({ exitCode, stderr, lastLine, outcome: claudeAgent.outcome({ lastLine, exitCode }) });
    });
  });

  return {
    events,
    lines,
    waitForEvent(match, timeoutMs = 60_000) {
      const found = events.find(match);
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          reject(
            new Error(`no such event within ${timeoutMs} ms; stderr: ${stderr.slice(0, 500)}`),
          );
        }, timeoutMs);
        const waiter = (event: AgentEvent) => {
          if (!match(event)) return;
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(event);
        };
        waiters.add(waiter);
        exited.then(
          () => {
            if (!waiters.has(waiter)) return;
            clearTimeout(timer);
            waiters.delete(waiter);
            reject(new Error(`the CLI exited before the event; stderr: ${stderr.slice(0, 500)}`));
          },
          () => undefined,
        );
      });
    },
    send(text) {
      const line = claudeAgent.conversation?.userMessageLine(text);
      if (line === undefined) throw new Error("the claude adapter takes no further messages");
      child.stdin.write(line);
    },
    closeStdin() {
      child.stdin.end();
    },
    kill(signal) {
      child.kill(signal);
    },
    exited,
  };
}
