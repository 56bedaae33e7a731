// The config files: the user's and the repository's, merged under the flags, each value shown
// with where it came from; a repository's file cannot widen what a task may do; a bad file is
// refused with its path and key.
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeEach, test } from "node:test";
import { describeCli } from "../support/cliSuite.js";
import { cleanEnv, idOf, runCli, type CliResult } from "../e2e/fixtures.js";

interface Entry {
  key: string;
  value: unknown;
  source: string;
  file?: string;
}

describeCli("config files", (ws) => {
  const configHome = (): string => join(ws.root, "config-home");
  const userFile = (): string => join(configHome(), "warden", "config.yaml");
  const repoFile = (): string => join(ws.repo, ".warden", "config.yaml");
  const env = (): Record<string, string> => cleanEnv({ XDG_CONFIG_HOME: configHome() });

  async function write(path: string, text: string): Promise<void> {
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, text);
  }

  async function config(...args: string[]): Promise<CliResult> {
    return runCli(ws.dataDir, ["config", "--repo", ws.repo, ...args], { env: env() });
  }

  async function entries(): Promise<Map<string, Entry>> {
    const result = await config("--json");
    assert.equal(result.code, 0, result.stderr);
    const parsed = JSON.parse(result.stdout) as { entries: Entry[] };
    return new Map(parsed.entries.map((entry) => [entry.key, entry]));
  }

  /** The settings of a task `create` made in the repository with `flags`. */
  async function createdSettings(...flags: string[]): Promise<Record<string, unknown>> {
    const create = await runCli(
      ws.dataDir,
      ["create", "--repo", ws.repo, "--sandbox", "none", "--prompt", "x", ...flags, "--", "true"],
      { env: env() },
    );
    assert.equal(create.code, 0, create.stderr);
    const show = await runCli(ws.dataDir, ["show", "--json", idOf(create)], { env: env() });
    assert.equal(show.code, 0, show.stderr);
    return (JSON.parse(show.stdout) as { settings: Record<string, unknown> }).settings;
  }

  beforeEach(async () => {
    await rm(configHome(), { recursive: true, force: true });
    await rm(join(ws.repo, ".warden"), { recursive: true, force: true });
  });

  test("warden config shows each value with its source: default, user file, repository file", async () => {
    await write(userFile(), "model: opus\nmaxTurns: 5\ntimeout: 20m\n");
    await write(repoFile(), "model: sonnet\n");
    const shown = await entries();
    assert.deepEqual(shown.get("model"), {
      key: "model",
      value: "sonnet",
      source: "repository",
      file: repoFile(),
    });
    assert.deepEqual(shown.get("maxTurns"), {
      key: "maxTurns",
      value: 5,
      source: "user",
      file: userFile(),
    });
    assert.equal(shown.get("agent")?.source, "default");
    assert.equal(shown.get("agent")?.value, "claude");
    const text = await config();
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^model +sonnet +repository \(/m);
    assert.match(text.stdout, /^timeout +20m +user \(/m);
  });

  test("a flag wins over the repository's file, and the repository's file over the user's", async () => {
    await write(userFile(), "model: from-user\nmaxTurns: 5\ntimeout: 20m\ndeadline: 3h\n");
    await write(repoFile(), "model: from-repo\nmaxTurns: 7\n");
    const fromFiles = await createdSettings();
    assert.equal(fromFiles.model, "from-repo");
    assert.equal(fromFiles.maxTurns, 7);
    assert.equal(fromFiles.timeoutSeconds, 1200);
    const withFlags = await createdSettings("--model", "from-flag", "--max-turns", "9");
    assert.equal(withFlags.model, "from-flag");
    assert.equal(withFlags.maxTurns, 9);
    assert.equal(withFlags.timeoutSeconds, 1200);
  });

  test("a repository's file cannot widen the network, the bounds or the budget: ignored, with a warning", async () => {
    await write(userFile(), "allow: [api.example.com]\n");
    await write(
      repoFile(),
      "allow: [evil.example.com]\npresets: [npm]\nmemory: 0\nmaxBudgetUsd: 100\nmodel: m\n",
    );
    const shown = await entries();
    assert.deepEqual(shown.get("allow")?.value, ["api.example.com"]);
    assert.equal(shown.get("allow")?.source, "user");
    assert.equal(shown.get("memory")?.source, "default");
    const settings = await createdSettings();
    assert.deepEqual(settings.allow, ["api.example.com"]);
    assert.deepEqual(settings.presets, []);
    assert.equal(settings.limits, undefined);
    assert.equal(settings.model, "m");
    const text = await config();
    for (const key of ["allow", "presets", "memory", "maxBudgetUsd"]) {
      assert.match(text.stderr, new RegExp(`sets ${key}, which only your own config may set`));
    }
  });

  test("a default the agent does not take is left out, where the same flag is refused", async () => {
    await write(userFile(), "maxBudgetUsd: 2\napprove: prompt\n");
    const settings = await createdSettings("--agent", "command");
    assert.equal(settings.maxBudgetUSD, 2, "the command agent takes a budget");
    assert.equal(settings.approve, undefined, "it takes no approve policy");
  });

  for (const [what, text, expected] of [
    [
      "a value of the wrong kind",
      "maxTurns: many\n",
      /config\.yaml: maxTurns is not a whole number/,
    ],
    ["a negative count", "maxTurns: -1\n", /config\.yaml: maxTurns is below 0/],
    ["an unknown key", "maxTurn: 3\n", /config\.yaml: has an unknown key: maxTurn/],
    ["a bad duration", "timeout: soon\n", /config\.yaml: timeout is not a duration/],
    ["an unknown agent", "agent: bob\n", /config\.yaml: agent is not one of claude/],
    ["text that is not YAML", "model: [\n", /config\.yaml is not YAML: .*line/],
    ["a list instead of a mapping", "- model\n", /config\.yaml is not a mapping/],
  ] as const) {
    test(`a config file with ${what} is refused, naming the file and the key`, async () => {
      await write(repoFile(), text);
      const shown = await config("--json");
      assert.equal(shown.code, 2, shown.stdout);
      const error = JSON.parse(shown.stdout) as { code: string; error: string };
      assert.equal(error.code, "BAD_CONFIG");
      assert.ok(error.error.startsWith(repoFile()), error.error);
      assert.match(error.error, expected);
      const create = await runCli(
        ws.dataDir,
        ["create", "--repo", ws.repo, "--sandbox", "none", "--prompt", "x", "--", "true"],
        { env: env() },
      );
      assert.equal(create.code, 2);
      assert.match(create.stderr, expected);
    });
  }

  test("a bad value in the user's file is refused with the user's file named", async () => {
    await write(userFile(), "maxRunning: 0\n");
    const shown = await config();
    assert.equal(shown.code, 2);
    assert.match(shown.stderr, new RegExp(`${userFile()}: maxRunning is below 1`));
  });
});
