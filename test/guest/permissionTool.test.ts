// The permission prompt tool as Claude Code runs it: the built permissionTool.js as a real
// process speaking MCP on stdio, asking a fake host on control.sock.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { test, type TestContext } from "node:test";
import { approvalQuestion, permissionAnswer } from "../../src/guest/approvalServer.js";
import { permissionPromptTool, permissionToolPath } from "../../src/guest/permissionPrompt.js";
import { CHANNEL_LIMITS } from "../../src/protocol/index.js";
import { skipWhen } from "../support/skipWhen.js";
import { startFakeHost, type FakeHostOptions } from "./fakeHost.js";

const TOOL = permissionToolPath();

interface McpClient {
  call(method: string, params?: unknown): Promise<Record<string, unknown>>;
  notify(method: string): void;
  /** Every line the tool wrote, parsed. */
  readonly lines: Record<string, unknown>[];
  readonly exited: Promise<number | null>;
  end(): void;
}

/** Starts the tool against `socket` and speaks JSON-RPC to it, a message a line. */
function startTool(t: TestContext, socket: string): McpClient {
  const child = spawn(process.execPath, [TOOL, "--socket", socket], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  t.after(() => child.kill("SIGKILL"));
  const lines: Record<string, unknown>[] = [];
  const waiting = new Map<number, (message: Record<string, unknown>) => void>();
  let pending = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf("\n");
    while (newline >= 0) {
      const message = JSON.parse(pending.slice(0, newline)) as Record<string, unknown>;
      pending = pending.slice(newline + 1);
      newline = pending.indexOf("\n");
      lines.push(message);
      waiting.get(message.id as number)?.(message);
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  let id = 0;
  return {
    call(method, params) {
      id += 1;
      const mine = id;
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: mine, method, params })}\n`);
      return new Promise((resolve) => waiting.set(mine, resolve));
    },
    notify(method) {
      child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method })}\n`);
    },
    lines,
    exited,
    end: () => child.stdin.end(),
  };
}

async function hostFor(t: TestContext, options: FakeHostOptions) {
  const host = await startFakeHost(options);
  t.after(() => host.close());
  return host;
}

/** The permission answer a tools/call result carries. */
function answerOf(message: Record<string, unknown>): Record<string, unknown> {
  const result = message.result as { content: { type: string; text: string }[] };
  const [block] = result.content;
  assert.ok(block !== undefined && block.type === "text");
  return JSON.parse(block.text) as Record<string, unknown>;
}

const built = skipWhen(existsSync(TOOL) ? false : `${TOOL} is missing: run npm run build first`);

test("the MCP config runs the tool with the runner's Node and names the socket", () => {
  const tool = permissionPromptTool({
    node: "/usr/bin/node",
    script: "/opt/warden/dist/guest/permissionTool.js",
    socket: "/run/warden/control.sock",
  });
  assert.equal(tool.tool, "mcp__warden__approve");
  assert.deepEqual(JSON.parse(tool.mcpConfig), {
    mcpServers: {
      warden: {
        type: "stdio",
        command: "/usr/bin/node",
        args: ["/opt/warden/dist/guest/permissionTool.js", "--socket", "/run/warden/control.sock"],
      },
    },
  });
});

test("the answers are the JSON texts Claude Code reads; a denial always has a message", () => {
  const input = { command: "rm -rf /" };
  assert.deepEqual(JSON.parse(permissionAnswer({ decision: "allow", reason: "ok" }, input)), {
    behavior: "allow",
    updatedInput: input,
  });
  assert.deepEqual(JSON.parse(permissionAnswer({ decision: "deny", reason: " " }, input)), {
    behavior: "deny",
    message: "warden denied this tool call",
  });
  const question = approvalQuestion("B".repeat(1000), { text: "é".repeat(20_000) });
  assert.ok(Buffer.byteLength(question.tool) <= CHANNEL_LIMITS.toolNameBytes);
  assert.ok(Buffer.byteLength(question.input) <= CHANNEL_LIMITS.toolInputBytes);
  assert.equal(approvalQuestion(42, undefined).tool, "(unnamed tool)");
});

test(
  "over MCP: initialize, the one tool listed, and each call asked of the host",
  { skip: built },
  async (t) => {
    const host = await hostFor(t, {
      approve: (tool, input) =>
        Promise.resolve(
          tool === "Bash" && input.includes("ls")
            ? { decision: "allow", reason: "policy: Bash(ls)" }
            : { decision: "deny", reason: "policy: nothing else" },
        ),
    });
    const mcp = startTool(t, host.socket);
    const init = await mcp.call("initialize", { protocolVersion: "2025-06-18", capabilities: {} });
    assert.deepEqual(init.result, {
      protocolVersion: "2025-06-18",
      capabilities: { tools: {} },
      serverInfo: { name: "warden-approvals", version: "1" },
    });
    mcp.notify("notifications/initialized");
    const list = await mcp.call("tools/list");
    assert.deepEqual(
      (list.result as { tools: { name: string }[] }).tools.map((tool) => tool.name),
      ["approve"],
    );
    // No connection to the host until there is something to ask.
    assert.equal(host.recorded.length, 0);

    const [allowed, denied] = await Promise.all([
      mcp.call("tools/call", {
        name: "approve",
        arguments: { tool_name: "Bash", input: { command: "ls" }, tool_use_id: "toolu_1" },
      }),
      mcp.call("tools/call", {
        name: "approve",
        arguments: { tool_name: "Write", input: { file_path: "/etc/passwd" } },
      }),
    ]);
    assert.deepEqual(answerOf(allowed), { behavior: "allow", updatedInput: { command: "ls" } });
    assert.deepEqual(answerOf(denied), { behavior: "deny", message: "policy: nothing else" });
    assert.deepEqual(
      host.recorded.map((r) => [r.request.op, r.connection]),
      [
        ["approval.ask", 1],
        ["approval.ask", 1],
      ],
    );
    const unknown = await mcp.call("resources/list");
    assert.deepEqual(unknown.error, { code: -32601, message: "method not found" });
    mcp.end();
    assert.equal(await mcp.exited, 0);
  },
);

test("with no host to ask, every call is denied, and says why", { skip: built }, async (t) => {
  const mcp = startTool(t, "/nonexistent/control.sock");
  const answer = await mcp.call("tools/call", {
    name: "approve",
    arguments: { tool_name: "Bash", input: { command: "ls" } },
  });
  const denial = answerOf(answer);
  assert.equal(denial.behavior, "deny");
  assert.match(String(denial.message), /warden could not ask whether this tool call may run/);
  mcp.end();
  assert.equal(await mcp.exited, 0);
});

test(
  "a host that hangs up mid-question: that call is denied, the next one asks again",
  { skip: built },
  async (t) => {
    const host = await hostFor(t, {
      approve: () => Promise.resolve({ decision: "allow", reason: "fine" }),
      misbehave: (_request, index) => (index === 0 ? { kind: "close" } : { kind: "answer" }),
    });
    const mcp = startTool(t, host.socket);
    const call = () =>
      mcp.call("tools/call", {
        name: "approve",
        arguments: { tool_name: "Bash", input: { command: "ls" } },
      });
    assert.equal(answerOf(await call()).behavior, "deny");
    assert.equal(answerOf(await call()).behavior, "allow");
    assert.deepEqual(
      host.recorded.map((r) => r.connection),
      [1, 2],
    );
    mcp.end();
  },
);
