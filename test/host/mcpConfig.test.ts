// The task's MCP servers as the host reads them: real files, each refusal typed.
import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { checkMcpForTask, readMcpConfigs } from "../../src/host/mcpConfig.js";
import {
  BadMcpConfigError,
  McpHostNotAllowedError,
  McpNotTakenError,
  McpServerNameError,
} from "../../src/host/mcpErrors.js";
import { HOST_LIMITS } from "../../src/host/limits.js";
import { MCP_LIMITS, checkSettings } from "../../src/protocol/index.js";

describe("reading --mcp-config files", () => {
  let dir = "";
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "warden-mcp-config-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function file(name: string, value: unknown): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, typeof value === "string" ? value : JSON.stringify(value));
    return path;
  }

  const stdio = (command: string) => ({ command, args: ["serve.js"] });

  test("two files become one set of servers, each server as the file gave it", async () => {
    const a = await file("a.json", { mcpServers: { docs: stdio("node") } });
    const b = await file("b.json", {
      mcpServers: { search: { type: "http", url: "https://mcp.example.com/mcp" } },
    });
    assert.deepEqual(await readMcpConfigs([a, b]), {
      docs: { command: "node", args: ["serve.js"] },
      search: { type: "http", url: "https://mcp.example.com/mcp" },
    });
  });

  test("a server named in two files is refused, naming both files", async () => {
    const a = await file("dup-a.json", { mcpServers: { docs: stdio("node") } });
    const b = await file("dup-b.json", { mcpServers: { docs: stdio("python3") } });
    await assert.rejects(readMcpConfigs([a, b]), (error: unknown) => {
      assert.ok(error instanceof McpServerNameError);
      assert.equal(error.code, "MCP_SERVER_NAME");
      assert.match(error.message, /docs.*dup-a\.json.*dup-b\.json/);
      return true;
    });
  });

  test("a server that takes warden's own name is refused, in any case", async () => {
    for (const name of ["warden", "Warden"]) {
      const path = await file(`own-${name}.json`, { mcpServers: { [name]: stdio("node") } });
      await assert.rejects(readMcpConfigs([path]), McpServerNameError);
    }
  });

  test("a file over its limit is refused before it is parsed", async () => {
    const big = await file("big.json", " ".repeat(HOST_LIMITS.mcpConfigFileBytes + 1));
    await assert.rejects(readMcpConfigs([big]), (error: unknown) => {
      assert.ok(error instanceof BadMcpConfigError);
      assert.match(error.message, /over the limit/);
      return true;
    });
  });

  test("a file with more servers than the limit is refused", async () => {
    const servers = Object.fromEntries(
      Array.from({ length: MCP_LIMITS.servers + 1 }, (_, i) => [`s${i}`, stdio("node")]),
    );
    const many = await file("many.json", { mcpServers: servers });
    await assert.rejects(readMcpConfigs([many]), (error: unknown) => {
      assert.ok(error instanceof BadMcpConfigError);
      assert.match(error.message, new RegExp(`more than the limit of ${MCP_LIMITS.servers}`));
      return true;
    });
  });

  test("what is no MCP config is refused: not JSON, other keys, a bad name, a command that is an option, an unknown field", async () => {
    const cases: unknown[] = [
      "{not json",
      { servers: {} },
      { mcpServers: { "../x": stdio("node") } },
      { mcpServers: { a__b: stdio("node") } },
      { mcpServers: { docs: stdio("--inspect") } },
      { mcpServers: { docs: { command: "node", cwd: "/" } } },
      { mcpServers: { docs: { type: "http", url: "file:///etc/passwd" } } },
      { mcpServers: { docs: { type: "http", url: "https://user:pw@example.com/" } } },
      { mcpServers: { docs: { command: "node\u0000x" } } },
    ];
    for (const [i, value] of cases.entries()) {
      const path = await file(`bad-${i}.json`, value);
      await assert.rejects(readMcpConfigs([path]), BadMcpConfigError, JSON.stringify(value));
    }
  });

  test("a directory in a file's place, and a missing file, are refused", async () => {
    await assert.rejects(readMcpConfigs([dir]), BadMcpConfigError);
    await assert.rejects(readMcpConfigs([join(dir, "missing.json")]), BadMcpConfigError);
  });
});

describe("a task's MCP servers against the task", () => {
  const https = { type: "http" as const, url: "https://mcp.example.com:8443/mcp" };

  test("an http server is refused unless the allow list names its host and port", () => {
    assert.throws(
      () => {
        checkMcpForTask({ search: https }, { agent: "claude", allow: [], presets: [] });
      },
      (error: unknown) => {
        assert.ok(error instanceof McpHostNotAllowedError);
        assert.match(error.hint ?? "", /--allow mcp\.example\.com:8443/);
        return true;
      },
    );
    assert.throws(
      () => {
        checkMcpForTask(
          { search: https },
          { agent: "claude", allow: ["mcp.example.com"], presets: [] },
        );
      },
      McpHostNotAllowedError,
      "the port is the allow list's too",
    );
    checkMcpForTask(
      { search: https },
      { agent: "claude", allow: ["mcp.example.com:8443"], presets: [] },
    );
    checkMcpForTask(
      { search: https },
      { agent: "claude", allow: ["*.example.com:8443"], presets: [] },
    );
  });

  test("a stdio server needs no allow list: it runs in the sandbox", () => {
    assert.doesNotThrow(() => {
      checkMcpForTask({ docs: { command: "node" } }, { agent: "gemini", allow: [], presets: [] });
    });
  });

  test("the command agent takes no servers, and Codex no sse server", () => {
    assert.throws(() => {
      checkMcpForTask({ docs: { command: "node" } }, { agent: "command", allow: [], presets: [] });
    }, McpNotTakenError);
    const sse = { type: "sse" as const, url: "https://mcp.example.com/sse" };
    assert.throws(() => {
      checkMcpForTask({ events: sse }, { agent: "codex", allow: ["mcp.example.com"], presets: [] });
    }, BadMcpConfigError);
  });

  test("the settings refuse warden's name, and servers or skills for the command agent, on the runner's side too", () => {
    assert.throws(() =>
      checkSettings({ agent: "claude", mcpServers: { warden: { command: "node" } } }),
    );
    assert.throws(() =>
      checkSettings({ agent: "command", command: ["x"], mcpServers: { a: { command: "node" } } }),
    );
    assert.throws(() => checkSettings({ agent: "command", command: ["x"], skills: ["a"] }));
    assert.throws(() => checkSettings({ agent: "claude", skills: ["../up"] }));
    const many = Object.fromEntries(
      Array.from({ length: MCP_LIMITS.servers + 1 }, (_, i) => [`s${i}`, { command: "node" }]),
    );
    assert.throws(() => checkSettings({ agent: "claude", mcpServers: many }), /more than 32/);
  });
});
