// What each agent's launch makes of a task's MCP servers and skills: the files the runner
// writes into the task's home and the options that name them. Pure plans, no process.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { adapterFor, type AgentTask } from "../../src/agents/index.js";
import { checkSettings, type AgentName, type McpServers } from "../../src/protocol/index.js";
import { permissionPromptTool } from "../../src/guest/permissionPrompt.js";

const SERVERS: McpServers = {
  notes: {
    command: "/usr/bin/node",
    args: ["mcp/notes.js", 'a "quoted" arg'],
    env: { LEVEL: "2" },
  },
  search: { type: "http", url: "https://mcp.example.com/mcp", headers: { "X-Team": "core" } },
};

const HOME = "/scratch/agent-home";

function task(agent: AgentName, extra: Partial<AgentTask> = {}): AgentTask {
  return {
    settings: checkSettings({ agent, mcpServers: SERVERS, skills: ["tidy"] }),
    prompt: "do it",
    home: HOME,
    skills: "/share/skills",
    ...extra,
  };
}

describe("a task's MCP servers and skills in each agent's launch", () => {
  test("Claude Code: one --mcp-config file in the task's home with the task's servers and warden's permission server, strict, and its config dir in the home", () => {
    const promptTool = permissionPromptTool({
      node: "/usr/bin/node",
      script: "/opt/warden/permissionTool.js",
      socket: "/run/warden/control.sock",
    });
    const settings = checkSettings({
      agent: "claude",
      approve: "prompt",
      mcpServers: SERVERS,
      skills: ["tidy"],
    });
    const launch = adapterFor("claude").launch({
      ...task("claude"),
      settings,
      permissionPromptTool: promptTool,
    });
    assert.ok(launch.argv.includes(`--mcp-config=${HOME}/mcp.json`));
    assert.ok(launch.argv.includes("--strict-mcp-config"));
    assert.ok(launch.argv.includes("--permission-prompt-tool=mcp__warden__approve"));
    assert.equal(launch.argv.filter((a) => a.startsWith("--mcp-config")).length, 1);
    const file = launch.files?.[0];
    assert.ok(file !== undefined);
    assert.equal(file.path, `${HOME}/mcp.json`);
    const written = JSON.parse(file.text) as { mcpServers: Record<string, unknown> };
    assert.deepEqual(Object.keys(written.mcpServers).sort(), ["notes", "search", "warden"]);
    assert.deepEqual(written.mcpServers.notes, SERVERS.notes);
    assert.equal(launch.env.CLAUDE_CONFIG_DIR, `${HOME}/.claude`);
    assert.equal(launch.skillsDir, `${HOME}/.claude/skills`);
  });

  test("Claude Code without servers of the task's own still passes --strict-mcp-config, so a repository's .mcp.json is never loaded", () => {
    const launch = adapterFor("claude").launch({
      settings: checkSettings({ agent: "claude" }),
      prompt: "x",
      home: HOME,
    });
    assert.ok(launch.argv.includes("--strict-mcp-config"));
    assert.ok(!launch.argv.some((a) => a.startsWith("--mcp-config")));
    assert.equal(launch.files, undefined);
    assert.equal(launch.skillsDir, undefined);
  });

  test("Codex: config.toml in CODEX_HOME holds an [mcp_servers.NAME] table per server, and the skills go to its skills folder", () => {
    const launch = adapterFor("codex").launch(task("codex"));
    const config = launch.files?.[0];
    assert.ok(config !== undefined);
    assert.equal(config.path, `${HOME}/.codex/config.toml`);
    const text = config.text;
    assert.match(
      text,
      /\[mcp_servers\."notes"\]\ncommand = "\/usr\/bin\/node"\nargs = \["mcp\/notes\.js", "a \\"quoted\\" arg"\]\nenv = \{ "LEVEL" = "2" \}/,
    );
    assert.match(
      text,
      /\[mcp_servers\."search"\]\nurl = "https:\/\/mcp\.example\.com\/mcp"\nhttp_headers = \{ "X-Team" = "core" \}/,
    );
    assert.equal(launch.env.CODEX_HOME, `${HOME}/.codex`);
    assert.equal(launch.skillsDir, `${HOME}/.codex/skills`);
  });

  test("Gemini: settings.json in GEMINI_CLI_HOME names the servers (httpUrl for http, url for sse), and the skills go to its skills folder", () => {
    const servers: McpServers = {
      ...SERVERS,
      events: { type: "sse", url: "https://mcp.example.com/sse" },
    };
    const launch = adapterFor("gemini").launch({
      ...task("gemini"),
      settings: checkSettings({ agent: "gemini", mcpServers: servers, skills: ["tidy"] }),
    });
    const file = launch.files?.[0];
    assert.ok(file !== undefined);
    assert.equal(file.path, `${HOME}/.gemini/settings.json`);
    const settings = JSON.parse(file.text) as { mcpServers: Record<string, unknown> };
    assert.deepEqual(settings.mcpServers, {
      notes: {
        command: "/usr/bin/node",
        args: ["mcp/notes.js", 'a "quoted" arg'],
        env: { LEVEL: "2" },
      },
      search: { httpUrl: "https://mcp.example.com/mcp", headers: { "X-Team": "core" } },
      events: { url: "https://mcp.example.com/sse" },
    });
    assert.equal(launch.skillsDir, `${HOME}/.gemini/skills`);
  });
});
