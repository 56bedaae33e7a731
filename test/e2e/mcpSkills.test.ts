// A task's own MCP servers and skills, end to end: the built `warden`, real bubblewrap, the real
// Claude Code CLI against a scripted Messages API. The model is offered the task's stdio server
// and calls it, warden's permission-prompt server answers beside it, a skill placed with
// --skills is in what the model is told, and an http server is refused unless the allow list
// names its host.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { startMcpHttpServer, type McpHttpServer } from "../support/mcpHttpServer.js";
import type { ScriptedAnthropic } from "../support/scriptedAnthropic.js";
import { git } from "../support/share.js";
import { skipWhen } from "../support/skipWhen.js";
import {
  claudeEnv,
  claudeSuite,
  NO_CLAUDE_SYSTEM,
  runClaude,
  shownToModel,
  warden,
} from "./claudeTasks.js";
import { idOf, runCli, type CliResult } from "./fixtures.js";

const NOTES_SERVER = fileURLToPath(new URL("../support/mcpNotesServer.js", import.meta.url));

/** An MCP config file with the notes server, which the repository holds at mcp/notes.js. */
async function notesConfig(dir: string): Promise<string> {
  const file = join(dir, "mcp.json");
  const server = { type: "stdio", command: process.execPath, args: ["mcp/notes.js"] };
  await writeFile(file, JSON.stringify({ mcpServers: { notes: server } }));
  return file;
}

/** A skills directory with one skill whose description carries `marker`. */
async function skillsDir(dir: string, marker: string): Promise<string> {
  const skills = join(dir, "skills");
  await mkdir(join(skills, "tidy-notes"), { recursive: true });
  await writeFile(
    join(skills, "tidy-notes", "SKILL.md"),
    `---\nname: tidy-notes\ndescription: Tidies the notes folder (${marker}).\n---\nSort the notes.\n`,
  );
  return skills;
}

describe(
  "a task's MCP servers and skills with the real Claude Code CLI",
  { skip: NO_CLAUDE_SYSTEM },
  () => {
    const suite = claudeSuite();
    let dir = "";

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), "warden-mcp-"));
      // The repository brings the server's script: a stdio server runs inside the sandbox.
      await mkdir(join(suite.ws.repo, "mcp"));
      await copyFile(NOTES_SERVER, join(suite.ws.repo, "mcp", "notes.js"));
      await git(suite.ws.repo, "add", "mcp/notes.js");
      await git(suite.ws.repo, "commit", "-qm", "the notes MCP server");
    });
    after(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    /** Polls `warden approvals --pending` until a request waits. */
    async function pendingApproval(id: string): Promise<Record<string, unknown>> {
      for (let i = 0; i < 300; i++) {
        const list = await warden(suite.ws, suite.api, ["approvals", id, "--pending", "--json"]);
        const pending = JSON.parse(list.stdout) as Record<string, unknown>[];
        if (pending[0] !== undefined) return pending[0];
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error("no approval request came");
    }

    test("a stdio MCP server of the task is offered to the model, its call works, and warden's permission prompt answers beside it", async () => {
      const server = await suite.scripted([
        { kind: "tool_use", name: "mcp__notes__write_note", input: { text: "hello from mcp" } },
        { kind: "tool_use", name: "Bash", input: { command: "echo yes > approved.txt" } },
        { kind: "text", text: "Noted and approved." },
      ]);
      const run = await runClaude(suite.ws, server, "write a note", [
        "--mcp-config",
        await notesConfig(dir),
        "--approve",
        "prompt",
        "--allow-tool",
        "mcp__notes__write_note",
        "--detach",
      ]);
      assert.equal(run.code, 0, run.stderr);
      const id = idOf(run);
      const request = await pendingApproval(id);
      assert.equal(request.tool, "Bash", "the Bash call went to warden's own server");
      const approve = await warden(suite.ws, server, ["approve", id, String(request.n), "allow"]);
      assert.equal(approve.code, 0, approve.stderr);
      const wait = await warden(suite.ws, server, ["wait", id, "--timeout", "120s", "--json"]);
      assert.equal(wait.code, 0, wait.stderr);

      const [first, second] = server.turns();
      // Claude Code names an MCP server's tools in the first request (as a tool, or among the
      // tools it loads on demand).
      assert.match(JSON.stringify(first?.body), /mcp__notes__write_note/);
      assert.match(shownToModel(second?.body), /noted: hello from mcp/);
      const fetch = await warden(suite.ws, server, ["fetch", id, "--json"]);
      assert.equal(fetch.code, 0, fetch.stderr);
      const branch = (JSON.parse(fetch.stdout) as { branch: string }).branch;
      assert.equal(await git(suite.ws.repo, "show", `${branch}:note.txt`), "hello from mcp");
      assert.equal(await git(suite.ws.repo, "show", `${branch}:approved.txt`), "yes");
    });

    test("a skill placed with --skills is in what Claude Code tells the model, and show lists the task's servers and skills", async () => {
      const marker = "skill-marker-7f3a";
      const server = await suite.scripted([{ kind: "text", text: "I see the skill." }]);
      const run = await runClaude(suite.ws, server, "which skills do you have?", [
        "--skills",
        await skillsDir(dir, marker),
        "--mcp-config",
        await notesConfig(dir),
        "--json",
      ]);
      assert.equal(run.code, 0, run.stderr);
      const { id } = JSON.parse(run.stdout) as { id: string };
      const body = JSON.stringify(server.turns()[0]?.body);
      assert.match(body, new RegExp(`tidy-notes: Tidies the notes folder \\(${marker}\\)`));
      const show = await warden(suite.ws, server, ["show", id]);
      assert.match(show.stdout, /mcpServers: +notes \(stdio\)/);
      assert.match(show.stdout, /skills: +tidy-notes/);
      assert.doesNotMatch(show.stdout, /notes\.js/, "show never prints a server's command line");
    });
  },
);

/** Why no certificate can be made here: the test makes its own with openssl. */
const NO_OPENSSL =
  NO_CLAUDE_SYSTEM ??
  skipWhen(spawnSync("openssl", ["version"]).status === 0 ? false : "openssl is missing");

/** A self-signed certificate for 127.0.0.2, made with openssl in `dir`. */
function certificate(dir: string): { key: string; cert: string } {
  const key = join(dir, "key.pem");
  const cert = join(dir, "cert.pem");
  const made = spawnSync("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-keyout",
    key,
    "-out",
    cert,
    "-days",
    "1",
    "-subj",
    "/CN=warden-test",
    "-addext",
    "subjectAltName=IP:127.0.0.2",
  ]);
  assert.equal(made.status, 0, made.stderr.toString());
  return { key: readFileSync(key, "utf8"), cert: readFileSync(cert, "utf8") };
}

describe("an http MCP server and the allow list", { skip: NO_OPENSSL }, () => {
  const suite = claudeSuite();
  let dir = "";
  let http: McpHttpServer | undefined;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "warden-mcp-http-"));
    const tls = certificate(dir);
    // 127.0.0.2, not 127.0.0.1: the sandbox keeps 127.0.0.1 and localhost off the proxy (its
    // own loopback holds the relay and the metadata server), so only another loopback address
    // of the host goes through the proxy like any host of the network.
    http = await startMcpHttpServer("127.0.0.2", tls);
    // The agent trusts the server's certificate from the workspace (NODE_EXTRA_CA_CERTS).
    await mkdir(join(suite.ws.repo, "tls"));
    await writeFile(join(suite.ws.repo, "tls", "ca.pem"), tls.cert);
    await git(suite.ws.repo, "add", "tls/ca.pem");
    await git(suite.ws.repo, "commit", "-qm", "the test server's certificate");
  });
  after(async () => {
    await http?.close();
    await rm(dir, { recursive: true, force: true });
  });

  function port(): number {
    if (http === undefined) throw new Error("the http server starts in before");
    return http.port;
  }

  async function httpConfig(scheme = "https"): Promise<string> {
    const file = join(dir, `${scheme}.json`);
    const server = { type: "http", url: `${scheme}://127.0.0.2:${port()}/mcp` };
    await writeFile(file, JSON.stringify({ mcpServers: { remote: server } }));
    return file;
  }

  async function create(server: ScriptedAnthropic, args: string[]): Promise<CliResult> {
    return warden(suite.ws, server, [
      "create",
      "--repo",
      suite.ws.repo,
      "--prompt",
      "x",
      ...args,
      "--json",
    ]);
  }

  test("an http MCP server on a loopback port not on the allow list is refused at create, naming the host and the flag", async () => {
    const server = await suite.scripted([]);
    const refused = await create(server, ["--mcp-config", await httpConfig()]);
    assert.equal(refused.code, 2, refused.stderr);
    const error = JSON.parse(refused.stdout) as Record<string, string>;
    assert.equal(error.code, "MCP_HOST_NOT_ALLOWED");
    assert.match(error.error ?? "", new RegExp(`remote.*127\\.0\\.0\\.2:${port()}`));
    assert.match(error.hint ?? "", new RegExp(`--allow 127\\.0\\.0\\.2:${port()}`));
  });

  test("a plain http:// MCP server is refused at create even on the allow list: the proxy forwards only https", async () => {
    const server = await suite.scripted([]);
    const allow = ["--allow", `127.0.0.2:${port()}`];
    const refused = await create(server, ["--mcp-config", await httpConfig("http"), ...allow]);
    assert.equal(refused.code, 2, refused.stderr);
    const error = JSON.parse(refused.stdout) as Record<string, string>;
    assert.equal(error.code, "BAD_MCP_CONFIG");
    assert.match(error.hint ?? "", /https:\/\//);
  });

  test("with its host and port on the allow list, the model is offered the server's tool and calls it through the proxy", async () => {
    const server = await suite.scripted([
      { kind: "tool_use", name: "mcp__remote__ping", input: { text: "over https" } },
      { kind: "text", text: "It answered." },
    ]);
    const run = await runCli(
      suite.ws.dataDir,
      [
        "run",
        "--repo",
        suite.ws.repo,
        "--prompt",
        "ping the server",
        "--mcp-config",
        await httpConfig(),
        "--allow",
        `127.0.0.2:${port()}`,
        "--env",
        "NODE_EXTRA_CA_CERTS",
        "--json",
      ],
      { env: { ...claudeEnv(server), NODE_EXTRA_CA_CERTS: "/workspace/tls/ca.pem" } },
    );
    assert.equal(run.code, 0, run.stderr);
    const { id } = JSON.parse(run.stdout) as { id: string };
    const proxyLog = await warden(suite.ws, server, ["logs", id, "--proxy-log"]);
    const agentLog = await warden(suite.ws, server, ["logs", id, "--agent-log"]);
    const seen = `server saw: ${JSON.stringify(http?.requests)}; proxy: ${proxyLog.stdout}; agent: ${agentLog.stdout}`;
    assert.match(JSON.stringify(server.turns()[0]?.body), /mcp__remote__ping/, seen);
    assert.match(shownToModel(server.turns()[1]?.body), /pong: over https/, seen);
    assert.deepEqual(http?.calls, ["over https"]);
    assert.match(proxyLog.stdout, new RegExp(`127\\.0\\.0\\.2:${port()}`));
  });
});
