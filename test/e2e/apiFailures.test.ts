// The real Claude Code CLI in a warden task whose model API fails for good: a key the upstream
// refuses, and an upstream that is not running. Claude Code retries both for well over a minute
// on its own; warden's relay sees the first failure, the task ends in seconds, and the end names
// the upstream the host configured, never the relay's address inside the sandbox.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { NO_CLAUDE_SYSTEM } from "./claudeTasks.js";
import { cleanEnv, runCli, workspace, type Workspace } from "./fixtures.js";

/**
 * How long a task with a failed API may take, start to end. Claude Code took 109 s for a
 * refused key and 111 s for a closed port before the relay reported them; warden takes about 3.
 */
const FAST_END_MS = 20_000;

function listenLoopback(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`);
    });
  });
}

describe(
  "a model API that fails for good ends a Claude Code task at once",
  { skip: NO_CLAUDE_SYSTEM },
  () => {
    let ws: Workspace;
    before(async () => {
      ws = await workspace();
    });
    after(async () => {
      await ws.cleanup();
    });

    async function runAgainst(upstream: string): Promise<{
      ms: number;
      code: number | null;
      ended: Record<string, unknown>;
      stderr: string;
      watch: string;
    }> {
      const env = cleanEnv({
        ANTHROPIC_BASE_URL: upstream,
        ANTHROPIC_API_KEY: "sk-ant-api03-wrong",
      });
      const started = Date.now();
      const run = await runCli(ws.dataDir, ["run", "--repo", ws.repo, "--prompt", "hi", "--json"], {
        env,
      });
      const ms = Date.now() - started;
      const ended = JSON.parse(run.stdout) as Record<string, unknown>;
      const watch = await runCli(ws.dataDir, ["watch", String(ended.id), "--no-follow"], { env });
      return { ms, code: run.code, ended, stderr: run.stderr, watch: watch.stdout };
    }

    test("a key the upstream refuses (401): failed in seconds, API_KEY_REJECTED, the upstream named", async () => {
      let hits = 0;
      const server = createServer((req, res) => {
        hits++;
        req.resume();
        res.writeHead(401, { "content-type": "application/json" });
        res.end(
          '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
        );
      });
      const url = await listenLoopback(server);
      try {
        const { ms, code, ended, stderr, watch } = await runAgainst(url);
        assert.equal(code, 1, stderr);
        assert.ok(ms < FAST_END_MS, `the task took ${ms} ms`);
        assert.equal(ended.state, "failed");
        assert.equal(ended.error, `the anthropic API at ${url} refused the API key (HTTP 401)`);
        assert.match(stderr, /refused the API key \(HTTP 401\)/, "the run said so as it happened");
        assert.match(watch, /api_failure: the anthropic API at .* refused the API key/);
        assert.doesNotMatch(JSON.stringify(ended) + stderr, /127\.0\.0\.1:3129/);
        assert.ok(hits <= 3, `the upstream was asked ${hits} times`);
        const show = await runCli(ws.dataDir, ["show", String(ended.id), "--json"]);
        const details = (JSON.parse(show.stdout) as { details: Record<string, unknown> }).details;
        assert.equal(details.code, "API_KEY_REJECTED");
      } finally {
        server.close();
      }
    });

    test("an upstream that is not running: failed in seconds, API_UNREACHABLE, the upstream named", async () => {
      const server = createServer();
      const url = await listenLoopback(server);
      await new Promise((resolve) => server.close(resolve));
      const { ms, code, ended, stderr, watch } = await runAgainst(url);
      assert.equal(code, 1, stderr);
      assert.ok(ms < FAST_END_MS, `the task took ${ms} ms`);
      assert.equal(
        ended.error,
        `the anthropic API at ${url} could not be reached: the connection was refused`,
      );
      assert.match(watch, /api_failure: .* could not be reached/);
      assert.doesNotMatch(JSON.stringify(ended) + stderr, /127\.0\.0\.1:3129/);
    });
  },
);
