// The allow/deny prompt of a foreground `warden run` on a terminal, through a real
// pseudo-terminal (util-linux `script`): the real Claude Code CLI in the sandbox asks about a
// Bash call, the person answers with one key, or from another terminal with `warden approve`,
// and the first answer wins.
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { describe, test } from "node:test";
import type { ScriptedAnthropic } from "../support/scriptedAnthropic.js";
import { skipWhen } from "../support/skipWhen.js";
import { withTestBounds } from "../support/testBounds.js";
import { claudeEnv, claudeSuite, NO_CLAUDE_SYSTEM, warden } from "./claudeTasks.js";
import { CLI_MAIN, type Workspace } from "./fixtures.js";

/** Why no pseudo-terminal can be had here: `script` comes with util-linux. */
const NO_SCRIPT =
  NO_CLAUDE_SYSTEM ??
  skipWhen(
    spawnSync("script", ["--version"]).status === 0 ? false : "script (util-linux) is missing",
  );

/** One word for sh, quoted: `script` takes its command as one line for the shell. */
function shellWord(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

interface Terminal {
  child: ChildProcess;
  /** Everything the terminal showed so far. */
  shown(): string;
  /** Resolves once the terminal has shown text that matches. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

/** `warden ...args` on a pseudo-terminal of its own; what is written to child.stdin is typed. */
function onTerminal(ws: Workspace, api: ScriptedAnthropic, args: string[]): Terminal {
  const argv = [process.execPath, CLI_MAIN, "--data-dir", ws.dataDir, ...withTestBounds(args)];
  const child = spawn("script", ["-qfec", argv.map(shellWord).join(" "), "/dev/null"], {
    env: { ...claudeEnv(api), TERM: "xterm" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let text = "";
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    text += chunk.toString("utf8");
    for (const listener of listeners) listener();
  };
  child.stdout.on("data", onData);
  child.stderr.on("data", onData);
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return {
    child,
    shown: () => text,
    waitFor: (pattern, timeoutMs = 90_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          if (!pattern.test(text)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`the terminal never showed ${pattern}; it showed:\n${text}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
    exited,
  };
}

const QUESTION = /request 1: allow Bash: echo yes > approved\.txt\? \[y\/n\/a\/\?\]/;

describe("the approval prompt of a foreground run on a terminal", { skip: NO_SCRIPT }, () => {
  const suite = claudeSuite();

  async function asking(): Promise<{ server: ScriptedAnthropic; terminal: Terminal }> {
    const api = await suite.scripted([
      { kind: "tool_use", name: "Bash", input: { command: "echo yes > approved.txt" } },
      { kind: "text", text: "Done." },
    ]);
    const terminal = onTerminal(suite.ws, api, [
      "run",
      "--repo",
      suite.ws.repo,
      "--prompt",
      "write approved.txt",
      "--env",
      "CLAUDE_CODE_MAX_RETRIES",
      "--approve",
      "prompt",
    ]);
    await terminal.waitFor(QUESTION);
    return { server: api, terminal };
  }

  async function newestId(server: ScriptedAnthropic): Promise<string> {
    const ls = await warden(suite.ws, server, ["ls", "-q", "--limit", "1"]);
    return ls.stdout.trim();
  }

  async function request(server: ScriptedAnthropic, id: string): Promise<Record<string, unknown>> {
    const list = await warden(suite.ws, server, ["approvals", id, "--json"]);
    const [first] = JSON.parse(list.stdout) as Record<string, unknown>[];
    return first ?? {};
  }

  test("pressing y allows the call: the agent runs it and the task brings back its change", async () => {
    const { server, terminal } = await asking();
    terminal.child.stdin?.write("?");
    await terminal.waitFor(/y allows this call, n denies it, a allows every Bash call/);
    terminal.child.stdin?.write("y");
    await terminal.waitFor(/approval request 1: allow \(allowed by a person\)/);
    assert.equal(await terminal.exited, 0, terminal.shown());
    const id = await newestId(server);
    const answered = await request(server, id);
    assert.equal(answered.decision, "allow");
    assert.equal(answered.answeredBy, "person");
    const show = await warden(suite.ws, server, ["show", id, "--json"]);
    assert.equal((JSON.parse(show.stdout) as { changes: boolean }).changes, true);
    terminal.child.stdin?.end();
  });

  test("an answer from another terminal wins: the prompt says so and takes no key for it", async () => {
    const { server, terminal } = await asking();
    const id = await newestId(server);
    const approve = await warden(suite.ws, server, ["approve", id, "1", "deny"]);
    assert.equal(approve.code, 0, approve.stderr);
    await terminal.waitFor(/request 1 was answered elsewhere: deny/);
    terminal.child.stdin?.write("y");
    assert.equal(await terminal.exited, 0, terminal.shown());
    const answered = await request(server, id);
    assert.equal(answered.decision, "deny", "the first answer stands");
    const show = await warden(suite.ws, server, ["show", id, "--json"]);
    assert.equal((JSON.parse(show.stdout) as { changes: boolean }).changes, false);
    terminal.child.stdin?.end();
  });
});
