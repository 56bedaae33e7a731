// `warden doctor --check-api` against real loopback servers: a key that works, a key the
// server refuses, a port nothing listens on, and no key at all; each with its line and its exit.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { after, before, test } from "node:test";
import { cleanEnv, runCli } from "../e2e/fixtures.js";
import { describeCli } from "../support/cliSuite.js";

const GOOD_KEY = "sk-ant-api03-good-key";

function listening(server: Server): Promise<string> {
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`);
    });
  });
}

describeCli("warden doctor --check-api", (ws) => {
  const seen: IncomingMessage[] = [];
  // Answers 200 to the good key and 401 to any other, as the Messages API does.
  const server = createServer((req, res) => {
    seen.push(req);
    req.resume();
    res.writeHead(req.headers["x-api-key"] === GOOD_KEY ? 200 : 401, {
      "content-type": "application/json",
    });
    res.end('{"data":[]}');
  });
  let url = "";
  let closedUrl = "";
  before(async () => {
    url = await listening(server);
    const closed = createServer();
    closedUrl = await listening(closed);
    await new Promise((resolve) => closed.close(resolve));
  });
  after(() => {
    server.close();
  });

  const doctor = (env: Record<string, string>, json = false) =>
    runCli(ws.dataDir, ["doctor", "--check-api", ...(json ? ["--json"] : [])], {
      env: cleanEnv(env),
    });

  test("a key the upstream takes is ok, asked for with one request to its model listing", async () => {
    seen.length = 0;
    const result = await doctor({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: GOOD_KEY });
    assert.match(
      result.stdout,
      new RegExp(`^ok {4}api anthropic at ${url}: the key works \\(HTTP 200\\)$`, "m"),
    );
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.url, "/v1/models?limit=1");
    assert.equal(seen[0].method, "GET");
    const json = await doctor({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: GOOD_KEY }, true);
    const report = JSON.parse(json.stdout) as { ready: boolean; apis: { verdict: string }[] };
    assert.equal(report.apis[0]?.verdict, "ok");
    assert.equal(json.code, report.ready ? 0 : 1, "a working key leaves the exit to the sandbox");
  });

  test("a refused key fails with exit 1, naming the upstream and what to check", async () => {
    const result = await doctor({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-wrong" });
    assert.equal(result.code, 1);
    assert.match(
      result.stdout,
      new RegExp(
        `^FAIL {2}api anthropic at ${url}: the upstream refused the API key \\(HTTP 401\\); fix: check ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN on the host$`,
        "m",
      ),
    );
    assert.doesNotMatch(result.stdout, /sk-ant-wrong/);
    assert.match(result.stdout, /^not ready: /m);
  });

  test("an upstream nothing listens on is unreachable, exit 1; --json gives the verdict and code", async () => {
    const result = await doctor(
      { ANTHROPIC_BASE_URL: closedUrl, OPENAI_API_KEY: "sk-x", OPENAI_BASE_URL: `${url}/v1` },
      true,
    );
    assert.equal(result.code, 1);
    const report = JSON.parse(result.stdout) as {
      ready: boolean;
      apis: { api: string; verdict: string; code?: string; upstream: string }[];
    };
    assert.equal(report.ready, false);
    assert.deepEqual(
      report.apis.map((a) => [a.api, a.verdict, a.code]),
      [["openai", "rejected", "API_KEY_REJECTED"]],
      "only the API with a key is asked",
    );
    const closed = await doctor(
      { ANTHROPIC_BASE_URL: closedUrl, ANTHROPIC_API_KEY: GOOD_KEY },
      true,
    );
    const apis = (JSON.parse(closed.stdout) as { apis: Record<string, unknown>[] }).apis;
    assert.equal(apis[0]?.verdict, "unreachable");
    assert.equal(apis[0].code, "API_UNREACHABLE");
    assert.equal(apis[0].upstream, closedUrl);
    assert.equal(closed.code, 1);
  });

  test("with no key set at all, nothing is asked and it fails saying which variables to set", async () => {
    const result = await doctor({});
    assert.equal(result.code, 1);
    assert.match(
      result.stdout,
      /^FAIL {2}api: no API key is set here.*ANTHROPIC_API_KEY.*OPENAI_API_KEY.*GEMINI_API_KEY/m,
    );
  });

  test("without --check-api no API is asked", async () => {
    seen.length = 0;
    const result = await runCli(ws.dataDir, ["doctor"], {
      env: cleanEnv({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: GOOD_KEY }),
    });
    assert.doesNotMatch(result.stdout, /^ok {4}api /m);
    assert.equal(seen.length, 0);
  });
});
