import { strict as assert } from "node:assert";
import { once } from "node:events";
import { request, createServer, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  PLACEHOLDER_VARIABLES,
  makePlaceholderKey,
  relaySettingsFromEnv,
  startRelay,
} from "../../src/egress/index.js";
import { API_KINDS, relayErrorBody } from "../../src/egress/relayApis.js";
import { EGRESS_LIMITS } from "../../src/egress/limits.js";
import { checkPlaceholder, parseUpstream } from "../../src/egress/relaySettings.js";
import {
  isCredentialHeader,
  upstreamHeaders,
  upstreamQuery,
} from "../../src/egress/relayHeaders.js";
import { sandboxEnv } from "../../src/egress/sandboxEnv.js";
import {
  checkRelayTarget,
  upstreamPath,
  type CheckedTarget,
} from "../../src/egress/relayTarget.js";
import type { RunningRelay } from "../../src/egress/startRelay.js";
import { forwardPorts, type ForwardedPorts } from "../../src/guest/forwardPorts.js";
import { closeServer, listen, tempDir } from "./localPeers.js";
import { readAnswer, withRelayOver, type Answer, type RelayOverOptions } from "./relayFixture.js";

const REAL_KEY = "sk-ant-real-0123456789abcdef-REAL";
const PLACEHOLDER = "sk-ant-warden-placeholder-not-a-key";

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly bodyBytes: number;
}

/**
 * A scripted API: records what it receives. A request with `x-test-stream: hold` gets one
 * event, and the rest of the stream once the test lets it go.
 */
function scriptedApi(): {
  server: ReturnType<typeof createServer>;
  seen: Seen[];
  releaseStream: () => void;
} {
  const seen: Seen[] = [];
  let release: () => void = () => undefined;
  let released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = createServer((req, res) => {
    let bodyBytes = 0;
    req.on("data", (chunk: Buffer) => (bodyBytes += chunk.length));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, bodyBytes });
      if (req.headers["x-test-stream"] === "hold") {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write("event: first\ndata: {}\n\n");
        void released.then(() => {
          res.end("event: last\ndata: {}\n\n");
          released = new Promise<void>((resolve) => {
            release = resolve;
          });
        });
        return;
      }
      res.writeHead(201, {
        "content-type": "application/json",
        "set-cookie": "s=1",
        "x-upstream": "yes",
        connection: "keep-alive",
      });
      res.end(JSON.stringify({ bodyBytes }));
    });
  });
  return {
    server,
    seen,
    releaseStream: () => {
      release();
    },
  };
}

function send(
  port: number,
  path: string,
  headers: Record<string, string>,
  body?: string | Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port,
      path,
      method: body === undefined ? "GET" : "POST",
      headers,
    });
    req.on("response", (res) => {
      readAnswer(res).then(resolve, reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("the API relay, reached through forwardPorts and its unix socket", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  const api = scriptedApi();
  let apiPort: number;
  let relay: RunningRelay;
  let forward: ForwardedPorts;
  let port: number;

  before(async () => {
    dir = await tempDir();
    apiPort = await listen(api.server, 0);
    const socketPath = join(dir.path, "relay.sock");
    relay = await startRelay({
      socketPath,
      upstream: `http://127.0.0.1:${apiPort}/gateway/anthropic/`,
      apiKey: REAL_KEY,
      placeholderKey: PLACEHOLDER,
    });
    forward = await forwardPorts([{ host: "127.0.0.1", port: 0, socketPath }]);
    port = forward.ports[0] ?? 0;
  });

  after(async () => {
    await forward.close();
    await relay.close();
    await closeServer(api.server);
    await dir.remove();
  });

  test("the upstream sees the real key, never the placeholder nor the client's credentials", async () => {
    const answer = await send(
      port,
      "/v1/messages?beta=true",
      {
        "x-api-key": PLACEHOLDER,
        authorization: `Bearer ${PLACEHOLDER}`,
        "proxy-authorization": "Basic dXNlcjpwYXNz",
        cookie: "session=stolen",
        "x-gateway-token": "t0ken",
        "anthropic-version": "2023-06-01",
        "anthropic-beta": "tools-2024",
        "content-type": "application/json",
        connection: "keep-alive, x-drop-me",
        "x-drop-me": "hop",
      },
      JSON.stringify({ model: "m", messages: [] }),
    );
    assert.equal(answer.status, 201);
    const seen = api.seen.at(-1);
    assert.ok(seen);
    assert.equal(seen.headers["x-api-key"], REAL_KEY);
    assert.equal(seen.headers.authorization, undefined);
    assert.equal(seen.headers["proxy-authorization"], undefined);
    assert.equal(seen.headers.cookie, undefined);
    assert.equal(seen.headers["x-gateway-token"], undefined);
    assert.equal(seen.headers["x-drop-me"], undefined);
    assert.equal(seen.headers["anthropic-version"], "2023-06-01");
    assert.equal(seen.headers["anthropic-beta"], "tools-2024");
    assert.equal(seen.headers.host, `127.0.0.1:${apiPort}`);
    assert.ok(
      !JSON.stringify(seen.headers).includes(PLACEHOLDER),
      "the placeholder never reaches the upstream",
    );
    assert.equal(seen.bodyBytes, JSON.stringify({ model: "m", messages: [] }).length);
    // The answer comes back with the upstream's status and its own headers, without the key.
    assert.equal(answer.headers["x-upstream"], "yes");
    assert.ok(!JSON.stringify(answer).includes(REAL_KEY));
  });

  test("the upstream URL's path prefix is kept before the request's path and query", async () => {
    await send(port, "/v1/messages/count_tokens?x=1", { "x-api-key": PLACEHOLDER }, "{}");
    assert.equal(api.seen.at(-1)?.url, "/gateway/anthropic/v1/messages/count_tokens?x=1");
  });

  test(
    "a streamed answer arrives event by event: the first event comes before the upstream finishes",
    { timeout: 5_000 },
    async () => {
      const req = request({
        host: "127.0.0.1",
        port,
        path: "/v1/messages",
        method: "POST",
        headers: { "x-api-key": PLACEHOLDER, "x-test-stream": "hold" },
      });
      req.end("{}");
      const [res] = (await once(req, "response")) as [IncomingMessage];
      assert.equal(res.headers["content-type"], "text/event-stream");
      const [first] = (await once(res, "data")) as [Buffer];
      assert.equal(first.toString(), "event: first\ndata: {}\n\n");
      // Only now does the upstream send its last event and finish.
      api.releaseStream();
      const rest = await readAnswer(res);
      assert.equal(rest.body, "event: last\ndata: {}\n\n");
    },
  );

  test("a large body is streamed to the upstream whole", async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, 0x61);
    const answer = await send(
      port,
      "/v1/messages",
      { "x-api-key": PLACEHOLDER, "content-type": "application/json" },
      body,
    );
    assert.equal(answer.status, 201);
    assert.deepEqual(JSON.parse(answer.body), { bodyBytes: body.length });
  });

  test("a body declared over the limit is refused with 413 before anything is sent upstream", async () => {
    const before = api.seen.length;
    const answer = await new Promise<Answer>((resolve, reject) => {
      const req = request({
        host: "127.0.0.1",
        port,
        path: "/v1/messages",
        method: "POST",
        headers: { "content-length": String(EGRESS_LIMITS.relayBodyBytes + 1) },
      });
      req.on("response", (res) => {
        readAnswer(res).then(resolve, reject);
      });
      req.on("error", reject);
      req.write("{");
    });
    assert.equal(answer.status, 413);
    assert.equal((JSON.parse(answer.body) as { type: string }).type, "error");
    assert.equal(api.seen.length, before);
  });

  test(
    "a chunked body that grows over the limit is cut with 413, which reaches a client still sending",
    { timeout: 60_000 },
    async () => {
      const answer = await new Promise<Answer>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path: "/v1/messages", method: "POST" });
        req.on("response", (res) => {
          readAnswer(res).then(resolve, reject);
        });
        // A connection reset instead of the answer fails the test; it never leaves it waiting.
        req.on("error", reject);
        const chunk = Buffer.alloc(1024 * 1024, 0x62);
        // The client goes on sending well past the limit, as one that does not read the answer
        // before it has sent its whole body does: the relay's answer must still reach it.
        const stopAt = EGRESS_LIMITS.relayBodyBytes + 16 * chunk.length;
        let sent = 0;
        const pump = (): void => {
          while (sent <= stopAt && !req.destroyed) {
            sent += chunk.length;
            if (!req.write(chunk)) {
              req.once("drain", pump);
              return;
            }
          }
          req.end();
        };
        pump();
      });
      assert.equal(answer.status, 413);
    },
  );

  test(
    "a client that sends on without end past the 413 has its connection cut after the drain bound",
    { timeout: 60_000 },
    async () => {
      const MiB = 1024 * 1024;
      // A raw connection, so that nothing but the relay ends it: a chunked body without end.
      const socket = connect({ host: "127.0.0.1", port });
      await once(socket, "connect");
      socket.write(
        "POST /v1/messages HTTP/1.1\r\nhost: relay\r\ntransfer-encoding: chunked\r\n\r\n",
      );
      socket.resume();
      const frame = Buffer.concat([
        Buffer.from(`${MiB.toString(16)}\r\n`),
        Buffer.alloc(MiB, 0x63),
        Buffer.from("\r\n"),
      ]);
      const sent = await new Promise<number>((resolve) => {
        let total = 0;
        socket.on("error", () => undefined);
        socket.on("close", () => {
          resolve(total);
        });
        const pump = (): void => {
          while (!socket.destroyed) {
            total += MiB;
            if (!socket.write(frame)) {
              socket.once("drain", pump);
              return;
            }
          }
        };
        pump();
      });
      const bound = EGRESS_LIMITS.relayBodyBytes + EGRESS_LIMITS.relayDrainBytes;
      // What the client wrote also fills the sockets' buffers, which the relay never reads.
      assert.ok(sent > bound, `cut after ${sent / MiB} MiB, before the bound`);
      assert.ok(sent < bound + 64 * MiB, `still open after ${sent / MiB} MiB`);
    },
  );

  test("request headers over the limit are refused with 431", async () => {
    const answer = await send(port, "/v1/messages", {
      "x-pad": "p".repeat(EGRESS_LIMITS.relayHeaderBytes + 1),
    });
    assert.equal(answer.status, 431);
  });

  test("a request target that is not a path is refused with 400", async () => {
    const answer = await send(port, "http://elsewhere.example/v1/messages", {
      "x-api-key": PLACEHOLDER,
    });
    assert.equal(answer.status, 400);
  });
});

describe("the relay's other settings", () => {
  test("bearer mode sends the token as Authorization and no x-api-key", async () => {
    const dir = await tempDir();
    const api = scriptedApi();
    const apiPort = await listen(api.server, 0);
    const socketPath = join(dir.path, "relay.sock");
    const relay = await startRelay({
      socketPath,
      upstream: `http://127.0.0.1:${apiPort}`,
      apiKey: "gw-token",
      auth: "bearer",
      placeholderKey: PLACEHOLDER,
    });
    try {
      const answer = await new Promise<Answer>((resolve, reject) => {
        const req = request({
          socketPath,
          path: "/v1/messages",
          method: "POST",
          headers: { "x-api-key": PLACEHOLDER },
        });
        req.on("response", (res) => {
          readAnswer(res).then(resolve, reject);
        });
        req.on("error", reject);
        req.end();
      });
      assert.equal(answer.status, 201);
      const seen = api.seen[0];
      assert.ok(seen);
      assert.equal(seen.headers.authorization, "Bearer gw-token");
      assert.equal(seen.headers["x-api-key"], undefined);
      assert.equal(seen.url, "/v1/messages");
    } finally {
      await relay.close();
      await closeServer(api.server);
      await dir.remove();
    }
  });

  test("an upstream that is down gets the client a 502 in the API's error shape, without the key", async () => {
    const dir = await tempDir();
    const gone = createServer();
    const gonePort = await listen(gone, 0);
    await closeServer(gone);
    const socketPath = join(dir.path, "relay.sock");
    const relay = await startRelay({
      socketPath,
      upstream: `http://127.0.0.1:${gonePort}/base`,
      apiKey: REAL_KEY,
      placeholderKey: PLACEHOLDER,
    });
    try {
      const answer = await new Promise<Answer>((resolve, reject) => {
        const req = request({ socketPath, path: "/v1/messages", method: "POST" });
        req.on("response", (res) => {
          readAnswer(res).then(resolve, reject);
        });
        req.on("error", reject);
        req.end("{}");
      });
      assert.equal(answer.status, 502);
      const body = JSON.parse(answer.body) as {
        type: string;
        error: { type: string; message: string };
      };
      assert.equal(body.type, "error");
      assert.equal(
        body.error.message,
        "warden relay: the API upstream could not be reached (ECONNREFUSED)",
      );
      assert.ok(!answer.body.includes(REAL_KEY));
    } finally {
      await relay.close();
      await dir.remove();
    }
  });

  test("a placeholder equal to or holding the real key is refused before listening", async () => {
    const dir = await tempDir();
    try {
      for (const placeholderKey of [REAL_KEY, "", `x${REAL_KEY}x`]) {
        await assert.rejects(
          startRelay({ socketPath: join(dir.path, "r.sock"), apiKey: REAL_KEY, placeholderKey }),
          { code: "BAD_RELAY_SETTING" },
        );
      }
      await assert.rejects(
        startRelay({
          socketPath: join(dir.path, "r.sock"),
          apiKey: "",
          placeholderKey: PLACEHOLDER,
        }),
        { code: "BAD_RELAY_SETTING" },
      );
    } finally {
      await dir.remove();
    }
  });
});

/** Starts a relay in front of a fresh scripted API, runs `body`, and takes both down. */
function withRelay(
  options: RelayOverOptions,
  body: (socketPath: string, api: ReturnType<typeof scriptedApi>) => Promise<void>,
): Promise<void> {
  return withRelayOver(scriptedApi(), options, body);
}

/** One request to the relay's unix socket. */
function sendTo(
  socketPath: string,
  path: string,
  headers: Record<string, string>,
  body = "{}",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: "POST", headers });
    req.on("response", (res) => {
      readAnswer(res).then(resolve, reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Every credential a hostile or confused client could send, all holding the placeholder. */
function sandboxCredentials(placeholder: string): Record<string, string> {
  return {
    authorization: `Bearer ${placeholder}`,
    "x-api-key": placeholder,
    "x-goog-api-key": placeholder,
    "api-key": placeholder,
    cookie: `k=${placeholder}`,
    "x-gateway-token": placeholder,
  };
}

describe("the relay in front of the OpenAI and Gemini APIs", () => {
  const OPENAI_KEY = "sk-proj-real-openai-0123456789";
  const GEMINI_KEY = "AIzaSy-real-gemini-0123456789";

  test("openai: the upstream sees OPENAI's real key as a bearer token under /v1, and nothing of the sandbox's", async () => {
    const placeholder = makePlaceholderKey("openai");
    await withRelay(
      { api: "openai", apiKey: OPENAI_KEY, placeholderKey: placeholder, prefix: "/v1" },
      async (socketPath, api) => {
        const answer = await sendTo(socketPath, "/responses?stream=true&key=stolen", {
          ...sandboxCredentials(placeholder),
          "content-type": "application/json",
          "openai-beta": "responses=v1",
        });
        assert.equal(answer.status, 201);
        const seen = api.seen[0];
        assert.ok(seen);
        assert.equal(seen.url, "/v1/responses?stream=true");
        assert.equal(seen.headers.authorization, `Bearer ${OPENAI_KEY}`);
        for (const name of [
          "x-api-key",
          "x-goog-api-key",
          "api-key",
          "cookie",
          "x-gateway-token",
        ]) {
          assert.equal(seen.headers[name], undefined, name);
        }
        assert.equal(seen.headers["openai-beta"], "responses=v1");
        assert.ok(
          !JSON.stringify(seen).includes(placeholder),
          "the placeholder never goes upstream",
        );
        assert.ok(!JSON.stringify(seen).includes("stolen"));
        assert.ok(!answer.body.includes(OPENAI_KEY));
      },
    );
  });

  test("gemini: the upstream sees the real key as x-goog-api-key, the query with alt=sse, and no key= parameter", async () => {
    const placeholder = makePlaceholderKey("gemini");
    const model = "/v1beta/models/gemini-2.5-pro:streamGenerateContent";
    await withRelay(
      { api: "gemini", apiKey: GEMINI_KEY, placeholderKey: placeholder },
      async (socketPath, api) => {
        const answer = await sendTo(socketPath, `${model}?key=${placeholder}&alt=sse&%6Bey=x`, {
          ...sandboxCredentials(placeholder),
          "content-type": "application/json",
          "x-goog-api-client": "google-genai-sdk/1.0",
        });
        assert.equal(answer.status, 201);
        const seen = api.seen[0];
        assert.ok(seen);
        assert.equal(seen.url, `${model}?alt=sse`);
        assert.equal(seen.headers["x-goog-api-key"], GEMINI_KEY);
        for (const name of ["authorization", "x-api-key", "api-key", "cookie", "x-gateway-token"]) {
          assert.equal(seen.headers[name], undefined, name);
        }
        assert.equal(seen.headers["x-goog-api-client"], "google-genai-sdk/1.0");
        assert.ok(
          !JSON.stringify(seen).includes(placeholder),
          "the placeholder never goes upstream",
        );
        assert.ok(!answer.body.includes(GEMINI_KEY));
      },
    );
  });

  test("gemini: an upstream with a path keeps it before the request's path", async () => {
    await withRelay(
      {
        api: "gemini",
        apiKey: GEMINI_KEY,
        placeholderKey: makePlaceholderKey("gemini"),
        prefix: "/gateway/google/",
      },
      async (socketPath, api) => {
        const model = "/v1beta/models/gemini-2.5-pro:generateContent";
        await sendTo(socketPath, `${model}?pageSize=5&pageToken=abc`, {});
        assert.equal(api.seen[0]?.url, `/gateway/google${model}?pageSize=5&pageToken=abc`);
      },
    );
  });

  test("the relay's own errors come in the shape of the API the agent speaks", async () => {
    await withRelay(
      { api: "gemini", apiKey: GEMINI_KEY, placeholderKey: "warden-placeholder-x", down: true },
      async (socketPath) => {
        const answer = await sendTo(socketPath, "/v1beta/models/m:generateContent", {});
        assert.equal(answer.status, 502);
        assert.deepEqual(JSON.parse(answer.body), {
          error: {
            code: 502,
            message: "warden relay: the API upstream could not be reached (ECONNREFUSED)",
            status: "UNAVAILABLE",
          },
        });
      },
    );
    await withRelay(
      { api: "openai", apiKey: OPENAI_KEY, placeholderKey: "sk-warden-placeholder-x" },
      async (socketPath) => {
        const answer = await sendTo(socketPath, "http://elsewhere.example/v1/responses", {});
        assert.equal(answer.status, 400);
        const body = JSON.parse(answer.body) as { error: { type: string; message: string } };
        assert.equal(body.error.type, "invalid_request_error");
        assert.match(body.error.message, /^warden relay: /);
      },
    );
  });

  test("an explicit auth kind overrides the API's default", async () => {
    await withRelay(
      {
        api: "gemini",
        apiKey: "gw-token",
        auth: "bearer",
        placeholderKey: makePlaceholderKey("gemini"),
      },
      async (socketPath, api) => {
        await sendTo(socketPath, "/v1beta/models/m:generateContent", { "x-goog-api-key": "p" });
        const seen = api.seen[0];
        assert.ok(seen);
        assert.equal(seen.headers.authorization, "Bearer gw-token");
        assert.equal(seen.headers["x-goog-api-key"], undefined);
      },
    );
  });
});

describe("relay settings and headers, as pure functions", () => {
  test("anthropic: the upstream comes from ANTHROPIC_BASE_URL when set, else the public API", () => {
    assert.deepEqual(relaySettingsFromEnv({ ANTHROPIC_API_KEY: "k" }, "anthropic"), {
      api: "anthropic",
      upstream: "https://api.anthropic.com",
      auth: { kind: "x-api-key", key: "k" },
    });
    assert.deepEqual(
      relaySettingsFromEnv(
        { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: "http://127.0.0.1:9/gw" },
        "anthropic",
      ),
      {
        api: "anthropic",
        upstream: "http://127.0.0.1:9/gw",
        auth: { kind: "x-api-key", key: "k" },
      },
    );
    assert.deepEqual(
      relaySettingsFromEnv({ ANTHROPIC_AUTH_TOKEN: "t", ANTHROPIC_BASE_URL: " " }, "anthropic"),
      {
        api: "anthropic",
        upstream: "https://api.anthropic.com",
        auth: { kind: "bearer", token: "t" },
      },
    );
    assert.equal(
      relaySettingsFromEnv({ ANTHROPIC_API_KEY: "k", ANTHROPIC_AUTH_TOKEN: "t" }, "anthropic")?.auth
        .kind,
      "x-api-key",
    );
    assert.equal(relaySettingsFromEnv({}, "anthropic"), undefined);
    assert.equal(relaySettingsFromEnv({ ANTHROPIC_API_KEY: "  " }, "anthropic"), undefined);
  });

  test("openai: OPENAI_BASE_URL else the public API with /v1, and OPENAI_API_KEY as a bearer token", () => {
    assert.deepEqual(relaySettingsFromEnv({ OPENAI_API_KEY: " sk-o " }, "openai"), {
      api: "openai",
      upstream: "https://api.openai.com/v1",
      auth: { kind: "bearer", token: "sk-o" },
    });
    assert.deepEqual(
      relaySettingsFromEnv(
        { OPENAI_API_KEY: "sk-o", OPENAI_BASE_URL: "https://gw.example/openai/v1" },
        "openai",
      ),
      {
        api: "openai",
        upstream: "https://gw.example/openai/v1",
        auth: { kind: "bearer", token: "sk-o" },
      },
    );
    // Another API's key is not this one's.
    assert.equal(relaySettingsFromEnv({ ANTHROPIC_API_KEY: "k" }, "openai"), undefined);
    assert.equal(relaySettingsFromEnv({ OPENAI_API_KEY: "" }, "openai"), undefined);
  });

  test("gemini: GOOGLE_GEMINI_BASE_URL else the public API, GEMINI_API_KEY before GOOGLE_API_KEY", () => {
    assert.deepEqual(relaySettingsFromEnv({ GOOGLE_API_KEY: "g" }, "gemini"), {
      api: "gemini",
      upstream: "https://generativelanguage.googleapis.com",
      auth: { kind: "x-goog-api-key", key: "g" },
    });
    assert.deepEqual(
      relaySettingsFromEnv(
        { GEMINI_API_KEY: "gem", GOOGLE_API_KEY: "g", GOOGLE_GEMINI_BASE_URL: "http://[::1]:8/" },
        "gemini",
      ),
      { api: "gemini", upstream: "http://[::1]:8/", auth: { kind: "x-goog-api-key", key: "gem" } },
    );
    assert.equal(
      relaySettingsFromEnv({ GEMINI_API_KEY: " ", OPENAI_API_KEY: "o" }, "gemini"),
      undefined,
    );
  });

  test("a bad upstream's hint names the variable of the API it is for", () => {
    assert.throws(
      () => parseUpstream("not a url", "openai"),
      (error: Error & { hint?: string }) => /OPENAI_BASE_URL/.test(error.hint ?? ""),
    );
    assert.throws(
      () => parseUpstream("https://x/?key=1", "gemini"),
      (error: Error & { hint?: string }) =>
        /GOOGLE_GEMINI_BASE_URL/.test(error.hint ?? "") && /GEMINI_API_KEY/.test(error.hint ?? ""),
    );
    assert.throws(
      () => {
        checkPlaceholder("p", { kind: "x-goog-api-key", key: "" }, "gemini");
      },
      (error: Error & { hint?: string }) =>
        error.hint === "set GEMINI_API_KEY or GOOGLE_API_KEY on the host",
    );
  });

  test("an upstream URL is read into origin and prefix; credentials, queries and other schemes are refused", () => {
    assert.deepEqual(parseUpstream("https://api.anthropic.com"), {
      protocol: "https:",
      hostname: "api.anthropic.com",
      port: 443,
      host: "api.anthropic.com",
      prefix: "",
    });
    assert.deepEqual(parseUpstream("http://[::1]:8080/a/b/"), {
      protocol: "http:",
      hostname: "::1",
      port: 8080,
      host: "[::1]:8080",
      prefix: "/a/b",
    });
    for (const bad of [
      "not a url",
      "ftp://x/",
      "https://user:pw@x/",
      "https://x/?key=1",
      "https://x/#f",
    ]) {
      assert.throws(() => parseUpstream(bad), { code: "BAD_RELAY_SETTING" }, bad);
    }
  });

  test("every listed credential header and any name that looks like one is dropped", () => {
    for (const name of [
      "Authorization",
      "proxy-authorization",
      "X-Api-Key",
      "api-key",
      "x-goog-api-key",
      "cookie",
      "x-auth-token",
      "x-custom-secret",
      "x-session-token",
      "x-my-apikey",
      "x-amz-security-token",
      "x-client-credential",
      "x-password",
    ]) {
      assert.equal(isCredentialHeader(name), true, name);
    }
    for (const name of [
      "anthropic-version",
      "anthropic-beta",
      "content-type",
      "accept",
      "user-agent",
      "idempotency-key",
      "x-stainless-retry-count",
      "x-claude-code-session-id",
    ]) {
      assert.equal(isCredentialHeader(name), false, name);
    }
  });

  test("the upstream headers carry exactly one credential, the real one", () => {
    const out = upstreamHeaders(
      {
        "x-api-key": "p",
        authorization: "Bearer p",
        host: "127.0.0.1:3129",
        "transfer-encoding": "chunked",
        "content-length": "2",
      },
      { kind: "x-api-key", key: "K" },
      "api.example",
    );
    assert.deepEqual(out, {
      "content-length": "2",
      host: "api.example",
      "accept-encoding": "identity",
      "x-api-key": "K",
    });
  });

  test("a checked target joins the prefix; absolute-form and * are not paths", () => {
    const target = (raw: string, method = "POST"): CheckedTarget => {
      const checked = checkRelayTarget("anthropic", method, raw);
      assert.equal(checked.kind, "forward", raw);
      return (checked as { target: CheckedTarget }).target;
    };
    assert.equal(upstreamPath("/gw/", target("/v1/messages")), "/gw/v1/messages");
    assert.equal(upstreamPath("", target("/v1/messages?x")), "/v1/messages?x");
    assert.equal(upstreamPath("/v1", { path: "/responses", query: "" }), "/v1/responses");
    assert.equal(checkRelayTarget("anthropic", "POST", "http://x/v1").kind, "refuse");
    assert.equal(checkRelayTarget("anthropic", "OPTIONS", "*").kind, "refuse");
  });

  test("a query is passed on byte for byte, less every parameter that carries a credential", () => {
    const model = "/v1beta/models/gemini-2.5-pro:streamGenerateContent";
    const path = (raw: string): string => {
      const checked = checkRelayTarget("gemini", "POST", raw);
      assert.equal(checked.kind, "forward", raw);
      return upstreamPath("", (checked as { target: CheckedTarget }).target);
    };
    assert.equal(path(`${model}?alt=sse`), `${model}?alt=sse`);
    assert.equal(path(`${model}?key=STOLEN&alt=sse`), `${model}?alt=sse`);
    assert.equal(path(`${model}?alt=sse&key=STOLEN`), `${model}?alt=sse`);
    assert.equal(path(`${model}?key=STOLEN`), model);
    assert.equal(path(`${model}?KEY=a&%6Bey=b&ke%79&key`), model);
    assert.equal(upstreamQuery("access_token=t&api_key=k&apikey=k&a=1"), "a=1");
    // Names that only contain `key` or `token` are not credentials; a key in a value is the
    // sandbox's own business.
    assert.equal(
      path(`${model}?pageToken=p&keyword=k&q=key%3Dv&a=%E0%A4`),
      `${model}?pageToken=p&keyword=k&q=key%3Dv&a=%E0%A4`,
    );
    assert.equal(upstreamQuery("%E0%A4=1&&a=b&"), "%E0%A4=1&a=b");
  });

  test("placeholders are fresh, shaped like each API's keys, and never overlap the key", () => {
    const a = makePlaceholderKey("anthropic");
    assert.notEqual(a, makePlaceholderKey("anthropic"));
    assert.match(a, /^sk-ant-warden-placeholder-[0-9a-f]{24}$/);
    assert.match(makePlaceholderKey(), /^sk-ant-warden-placeholder-[0-9a-f]{24}$/);
    assert.match(makePlaceholderKey("openai"), /^sk-warden-placeholder-[0-9a-f]{24}$/);
    assert.match(makePlaceholderKey("gemini"), /^warden-placeholder-[0-9a-f]{24}$/);
    assert.doesNotThrow(() => {
      checkPlaceholder(a, { kind: "x-api-key", key: REAL_KEY });
    });
  });

  test("the sandbox's environment puts each API's placeholder and relay URL in its own variables", () => {
    assert.deepEqual(PLACEHOLDER_VARIABLES, {
      anthropic: "ANTHROPIC_API_KEY",
      openai: "OPENAI_API_KEY",
      gemini: "GEMINI_API_KEY",
    });
    const relayUrl = "http://127.0.0.1:3129";
    const openai = sandboxEnv("sk-warden-placeholder-1", "openai");
    assert.equal(openai.OPENAI_API_KEY, "sk-warden-placeholder-1");
    assert.equal(openai.OPENAI_BASE_URL, relayUrl);
    assert.equal(openai.ANTHROPIC_API_KEY, undefined);
    assert.equal(openai.ANTHROPIC_BASE_URL, undefined);
    const gemini = sandboxEnv("warden-placeholder-1", "gemini");
    assert.equal(gemini.GEMINI_API_KEY, "warden-placeholder-1");
    assert.equal(gemini.GOOGLE_GEMINI_BASE_URL, relayUrl);
    assert.equal(gemini.GOOGLE_API_KEY, undefined);
    assert.equal(sandboxEnv("sk-ant-warden-placeholder-1").ANTHROPIC_BASE_URL, relayUrl);
  });

  test("the relay's own errors take each API's error shape", () => {
    assert.deepEqual(relayErrorBody("anthropic", 502, "api_error", "down"), {
      type: "error",
      error: { type: "api_error", message: "warden relay: down" },
    });
    assert.deepEqual(relayErrorBody("openai", 413, "request_too_large", "big"), {
      error: { message: "warden relay: big", type: "request_too_large", param: null, code: null },
    });
    assert.deepEqual(relayErrorBody("gemini", 504, "api_error", "slow"), {
      error: { code: 504, message: "warden relay: slow", status: "DEADLINE_EXCEEDED" },
    });
    assert.deepEqual(API_KINDS, ["anthropic", "openai", "gemini"]);
  });
});
