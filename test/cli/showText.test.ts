// How `show` and `ls` read to a person: settings as aligned `name: value` lines (only those set,
// never raw JSON), times local and humane in text and ISO 8601 in JSON, and the state in colour
// only on a terminal, never with NO_COLOR, never in --json and never through a pipe.
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { test } from "node:test";
import { describeCli } from "../support/cliSuite.js";
import { skipWhen } from "../support/skipWhen.js";
import { CLI_MAIN, cleanEnv, collect, idOf, runCli, type Workspace } from "../e2e/fixtures.js";

/** Why no pseudo-terminal can be had here: `script` comes with util-linux. */
const NO_SCRIPT = skipWhen(
  spawnSync("script", ["--version"]).status === 0 ? false : "script (util-linux) is missing",
);

/** The escape character that starts every terminal control sequence. */
const ESC = "\u001b";

/** An escape sequence of any kind. */
const ESCAPE = new RegExp(ESC);

/** `word` painted dim, as colour.ts paints a cancelled task's state. */
function dim(word: string): string {
  return `${ESC}[2m${word}${ESC}[0m`;
}

/** One word for sh, quoted: `script` takes its command as one line for the shell. */
function shellWord(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** What `warden ...args` shows on a pseudo-terminal of its own (util-linux `script`). */
async function onTerminal(ws: Workspace, args: string[], env: Record<string, string> = {}) {
  const argv = [process.execPath, CLI_MAIN, "--data-dir", ws.dataDir, ...args];
  const child = spawn("script", ["-qfec", argv.map(shellWord).join(" "), "/dev/null"], {
    env: cleanEnv({ TERM: "xterm", ...env }),
    stdio: ["pipe", "pipe", "pipe"],
  });
  const result = collect(child);
  child.stdin.end();
  return result;
}

describeCli("show and ls as text", (ws) => {
  test("show prints the settings that are set as aligned lines, and times as local text", async () => {
    const made = await runCli(
      ws.dataDir,
      [
        "create",
        "--repo",
        ws.repo,
        "--prompt",
        "settings",
        "--env",
        "FOO",
        "--max-turns",
        "3",
        "--max-budget-usd",
        "2",
        "--timeout",
        "5m",
        "--approve",
        "prompt",
        "--approve-timeout",
        "2m",
        "--allow-tool",
        "Bash(git *)",
        "--allow",
        "example.com",
      ],
      { env: cleanEnv({ ANTHROPIC_API_KEY: "sk-ant-test", FOO: "secret-value" }) },
    );
    const id = idOf(made);
    const show = await runCli(ws.dataDir, ["show", id]);
    assert.equal(show.code, 0, show.stderr);
    const settings = show.stdout.slice(show.stdout.indexOf("settings:\n"));
    for (const line of [
      "  agent:       claude",
      "  approve:     prompt, a person has 2m to answer",
      "  allow tools: Bash(git *)",
      "  max turns:   3",
      "  budget:      $2.00",
      "  timeout:     5m",
      "  network:     example.com",
      "  env:         FOO",
    ]) {
      assert.ok(settings.split("\n").includes(line), `show prints ${line}\n${show.stdout}`);
    }
    assert.doesNotMatch(show.stdout, /[{}[\]"]/, "no raw JSON");
    assert.doesNotMatch(show.stdout, /secret-value/, "the names of --env, never their values");
    assert.doesNotMatch(settings, /deny tools|model|presets/, "only the settings that are set");
    assert.match(show.stdout, /^created: +\d\d:\d\d:\d\d$/m, "made today: the clock alone");
    const json = JSON.parse((await runCli(ws.dataDir, ["show", id, "--json"])).stdout) as {
      createdAt: string;
      settings: { maxTurns: number };
    };
    assert.match(json.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(json.settings.maxTurns, 3, "--json keeps the settings as they are");
  });

  test("a command agent's words show quoted as a shell would need them", async () => {
    const id = idOf(
      await runCli(ws.dataDir, [
        "create",
        "--repo",
        ws.repo,
        "--prompt",
        "cmd",
        "--",
        "sh",
        "-c",
        `echo "it's" done`,
      ]),
    );
    const show = await runCli(ws.dataDir, ["show", id]);
    assert.match(show.stdout, /^ {2}command: +sh -c 'echo "it'\\''s" done'$/m);
  });

  test("through a pipe, ls and show print no escape sequence", async () => {
    // A cancelled task: its state is one that is painted on a terminal.
    const made = await runCli(ws.dataDir, [
      "create",
      "--repo",
      ws.repo,
      "--prompt",
      "piped",
      "--",
      "true",
    ]);
    assert.equal((await runCli(ws.dataDir, ["cancel", idOf(made)])).code, 0);
    for (const args of [["ls"], ["show", "@last"], ["approvals"]]) {
      const out = await runCli(ws.dataDir, args);
      assert.equal(out.code, 0, out.stderr);
      assert.doesNotMatch(out.stdout + out.stderr, ESCAPE, args.join(" "));
    }
  });

  test(
    "on a terminal the state is in colour, but not with NO_COLOR or --json",
    { skip: NO_SCRIPT },
    async () => {
      const painted = await onTerminal(ws, ["show", "@last"]);
      assert.ok(
        painted.stdout
          .split(/\r?\n/)
          .some((l) => /^state: +/.test(l) && l.endsWith(dim("cancelled"))),
        painted.stdout,
      );
      // The state is painted word by word, the padding left outside the escapes.
      const lsPainted = await onTerminal(ws, ["ls"]);
      assert.equal(lsPainted.code, 0, lsPainted.stdout);
      assert.ok(lsPainted.stdout.includes(`${dim("cancelled")}  `), lsPainted.stdout);
      const plain = await onTerminal(ws, ["ls"], { NO_COLOR: "1" });
      assert.match(plain.stdout, /cancelled/);
      assert.doesNotMatch(plain.stdout, ESCAPE);
      const json = await onTerminal(ws, ["ls", "--json"]);
      assert.doesNotMatch(json.stdout, ESCAPE);
    },
  );
});
