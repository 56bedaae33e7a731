// The failures of an API upstream that no retry mends, as the relay reports them to the host
// and as `warden doctor --check-api` reads them: real relays on unix sockets in front of real
// loopback servers, one answering each status, and a port nothing listens on.
import { strict as assert } from "node:assert";
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import { describe, test } from "node:test";
import {
  ApiKeyRejectedError,
  ApiUnreachableError,
  checkApi,
  type UpstreamFailure,
} from "../../src/egress/index.js";
import { relayAuth } from "../../src/egress/relayHeaders.js";
import { closeServer, listen } from "./localPeers.js";
import { readAnswer, withRelayOver, type Answer } from "./relayFixture.js";

const REAL_KEY = "sk-ant-real-0123456789abcdef-REAL";
const PLACEHOLDER = "sk-ant-warden-placeholder-not-a-key";

/** A server that answers every request with `status`, and records the headers it was sent. */
function answering(status: number): { server: Server; seen: IncomingHttpHeaders[] } {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ type: "error", error: { type: "x", message: `status ${status}` } }));
  });
  return { server, seen };
}

function post(socketPath: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: "/v1/messages", method: "POST" });
    req.on("response", (res) => {
      readAnswer(res).then(resolve, reject);
    });
    req.on("error", reject);
    req.end("{}");
  });
}

/** Sends two requests through a relay over `upstream`; returns the answers and the failures told. */
async function throughRelay(
  upstream: { server: Server },
  options: { down?: boolean; prefix?: string } = {},
): Promise<{ answers: Answer[]; failures: UpstreamFailure[] }> {
  const failures: UpstreamFailure[] = [];
  const answers: Answer[] = [];
  await withRelayOver(
    upstream,
    {
      apiKey: REAL_KEY,
      placeholderKey: PLACEHOLDER,
      onUpstreamFailure: (failure) => failures.push(failure),
      ...options,
    },
    async (socketPath) => {
      answers.push(await post(socketPath), await post(socketPath));
    },
  );
  return { answers, failures };
}

describe("the relay tells the host of failures no retry mends", () => {
  test("a 401 from the upstream is told as a rejected key naming the upstream, and the agent still gets the 401", async () => {
    const upstream = answering(401);
    const { answers, failures } = await throughRelay(upstream, { prefix: "/gateway" });
    assert.deepEqual(
      answers.map((a) => a.status),
      [401, 401],
    );
    assert.equal(failures.length, 2, "each refused request is told; the host keeps the first");
    const [first] = failures;
    assert.ok(first instanceof ApiKeyRejectedError);
    assert.equal(first.code, "API_KEY_REJECTED");
    assert.match(
      first.message,
      /^the anthropic API at http:\/\/127\.0\.0\.1:\d+\/gateway refused the API key \(HTTP 401\)$/,
    );
    assert.match(first.hint ?? "", /ANTHROPIC_API_KEY/);
    assert.match(first.hint ?? "", /warden doctor --check-api/);
    assert.doesNotMatch(first.message + (first.hint ?? ""), /3129|sk-ant-real/);
  });

  test("a 403 is told as a rejected key too", async () => {
    const { failures } = await throughRelay(answering(403));
    assert.ok(failures[0] instanceof ApiKeyRejectedError);
    assert.match(failures[0].message, /\(HTTP 403\)/);
  });

  test("a 500, a 429 and a 404 are not told: the agent's own retries may mend them", async () => {
    for (const status of [500, 429, 404, 200]) {
      const { answers, failures } = await throughRelay(answering(status));
      assert.equal(answers[0]?.status, status);
      assert.deepEqual(failures, [], `HTTP ${status}`);
    }
  });

  test("an upstream that refuses the connection is told as unreachable, naming its URL", async () => {
    const { answers, failures } = await throughRelay(answering(200), { down: true });
    assert.deepEqual(
      answers.map((a) => a.status),
      [502, 502],
    );
    const [first] = failures;
    assert.ok(first instanceof ApiUnreachableError);
    assert.equal(first.code, "API_UNREACHABLE");
    assert.match(
      first.message,
      /^the anthropic API at http:\/\/127\.0\.0\.1:\d+ could not be reached: the connection was refused$/,
    );
    assert.match(first.hint ?? "", /ANTHROPIC_BASE_URL/);
  });
});

describe("doctor's check of an API", () => {
  async function checkOver(
    status: number | "closed",
    api: "anthropic" | "openai" | "gemini" = "anthropic",
  ): Promise<{ check: Awaited<ReturnType<typeof checkApi>>; seen: IncomingHttpHeaders[] }> {
    const upstream = answering(status === "closed" ? 200 : status);
    const port = await listen(upstream.server, 0);
    if (status === "closed") await closeServer(upstream.server);
    const auth = api === "anthropic" ? "x-api-key" : api === "openai" ? "bearer" : "x-goog-api-key";
    try {
      const check = await checkApi({
        api,
        upstream: `http://127.0.0.1:${port}/base`,
        auth: relayAuth(auth, REAL_KEY),
      });
      return { check, seen: upstream.seen };
    } finally {
      if (status !== "closed") await closeServer(upstream.server);
    }
  }

  test("a 200 to the model listing is ok, and the request carried the key the way the API takes it", async () => {
    const { check, seen } = await checkOver(200);
    assert.equal(check.verdict, "ok");
    assert.equal(check.status, 200);
    assert.equal(seen.length, 1, "one request");
    assert.equal(seen[0]?.["x-api-key"], REAL_KEY);
    assert.equal(seen[0]["anthropic-version"], "2023-06-01");
    const openai = await checkOver(200, "openai");
    assert.equal(openai.check.verdict, "ok");
    assert.equal(openai.seen[0]?.authorization, `Bearer ${REAL_KEY}`);
    const gemini = await checkOver(200, "gemini");
    assert.equal(gemini.seen[0]?.["x-goog-api-key"], REAL_KEY);
  });

  test("a 401 is a rejected key, a closed port is unreachable, a 500 is a failure of another kind", async () => {
    const rejected = (await checkOver(401)).check;
    assert.equal(rejected.verdict, "rejected");
    assert.equal(rejected.code, "API_KEY_REJECTED");
    assert.equal(rejected.detail, "the upstream refused the API key (HTTP 401)");
    assert.match(rejected.upstream, /^http:\/\/127\.0\.0\.1:\d+\/base$/);
    const closed = (await checkOver("closed")).check;
    assert.equal(closed.verdict, "unreachable");
    assert.equal(closed.code, "API_UNREACHABLE");
    const broken = (await checkOver(500)).check;
    assert.equal(broken.verdict, "failed");
    assert.match(broken.detail, /HTTP 500/);
    for (const check of [rejected, closed, broken]) {
      assert.doesNotMatch(JSON.stringify(check), new RegExp(REAL_KEY));
    }
  });

  test("an upstream that is not a URL is a failed check, not a crash", async () => {
    const check = await checkApi({
      api: "anthropic",
      upstream: "not a url",
      auth: relayAuth("x-api-key", REAL_KEY),
    });
    assert.equal(check.verdict, "failed");
    assert.equal(check.code, "BAD_RELAY_SETTING");
  });
});
