// The config files' `mcp` and `skills`: a repository's file may name MCP servers, but an http
// server of its own still needs the user's allow list, and it may not name a skills directory.
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeEach, test } from "node:test";
import { describeCli } from "../support/cliSuite.js";
import { cleanEnv, runCli, type CliResult } from "../e2e/fixtures.js";

const CLAUDE = fileURLToPath(new URL("../../node_modules/.bin/claude", import.meta.url));

describeCli("MCP servers and skills in the config files", (ws) => {
  const configHome = (): string => join(ws.root, "config-home");
  const userFile = (): string => join(configHome(), "warden", "config.yaml");
  const repoFile = (): string => join(ws.repo, ".warden", "config.yaml");

  async function write(path: string, text: string): Promise<void> {
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, text);
  }

  function create(): Promise<CliResult> {
    return runCli(
      ws.dataDir,
      ["create", "--repo", ws.repo, "--agent-program", CLAUDE, "--prompt", "x", "--json"],
      { env: cleanEnv({ XDG_CONFIG_HOME: configHome(), ANTHROPIC_API_KEY: "sk-ant-test" }) },
    );
  }

  beforeEach(async () => {
    await rm(configHome(), { recursive: true, force: true });
    await rm(join(ws.repo, ".warden"), { recursive: true, force: true });
  });

  test("a repository's file names a stdio server, which the task takes; its skills directory is ignored with a warning", async () => {
    const skills = join(ws.root, "skills");
    await mkdir(join(skills, "tidy"), { recursive: true });
    await writeFile(join(skills, "tidy", "SKILL.md"), "x");
    await write(
      repoFile(),
      `mcp:\n  notes: { command: node, args: [mcp/notes.js] }\nskills: ${skills}\n`,
    );
    const created = await create();
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stderr, /sets skills, which only your own config may set; ignored/);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const show = await runCli(ws.dataDir, ["show", id, "--json"], { env: cleanEnv() });
    const settings = (JSON.parse(show.stdout) as { settings: Record<string, unknown> }).settings;
    assert.deepEqual(settings.mcpServers, ["notes (stdio)"]);
    assert.equal(settings.skills, undefined);
  });

  test("a repository's http server is refused unless the user's own allow list names its host", async () => {
    await write(repoFile(), "mcp:\n  search: { type: http, url: 'https://mcp.example.com/mcp' }\n");
    const refused = await create();
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal((JSON.parse(refused.stdout) as { code: string }).code, "MCP_HOST_NOT_ALLOWED");
    await write(
      repoFile(),
      "allow: [mcp.example.com]\nmcp:\n  search: { type: http, url: 'https://mcp.example.com/mcp' }\n",
    );
    const stillRefused = await create();
    assert.equal(stillRefused.code, 2, "the repository's own allow list is ignored");
    await write(userFile(), "allow: [mcp.example.com]\n");
    const taken = await create();
    assert.equal(taken.code, 0, taken.stderr);
  });

  test("a repository's server named warden is refused", async () => {
    await write(repoFile(), "mcp:\n  warden: { command: node }\n");
    const refused = await create();
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal((JSON.parse(refused.stdout) as { code: string }).code, "MCP_SERVER_NAME");
  });
});
