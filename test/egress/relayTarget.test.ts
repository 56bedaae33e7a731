import { strict as assert } from "node:assert";
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { describe, test } from "node:test";
import {
  RELAY_APIS,
  RelayBackslashError,
  RelayDotSegmentError,
  RelayEmptySegmentError,
  RelayEscapeError,
  RelayFragmentError,
  RelayMethodNotAllowedError,
  RelayPathNotAllowedError,
  RelayTargetFormError,
} from "../../src/egress/index.js";
import { checkRelayTarget } from "../../src/egress/relayTarget.js";
import { routeText, type ApiKind } from "../../src/egress/relayApis.js";
import { withRelayOver } from "./relayFixture.js";

const REAL_KEY = "sk-ant-real-key-0123456789abcdef-REAL";
const PLACEHOLDER = "sk-ant-warden-placeholder-not-a-key";

/** The code of the refusal `checkRelayTarget` gives, or "forward". */
function verdict(api: ApiKind, method: string, target: string): string {
  const checked = checkRelayTarget(api, method, target);
  return checked.kind === "forward" ? "forward" : checked.refusal.code;
}

describe("the relay's check of a request target, as a pure function", () => {
  test("each kind of target a server could read as another path is refused with its own code", () => {
    const rows: [string, string][] = [
      ["/../../admin/keys", "RELAY_DOT_SEGMENT"],
      ["/v1/../admin/keys", "RELAY_DOT_SEGMENT"],
      ["/v1/./messages", "RELAY_DOT_SEGMENT"],
      ["/v1/%2e%2e/admin", "RELAY_DOT_SEGMENT"],
      ["/v1/%2E%2E/admin", "RELAY_DOT_SEGMENT"],
      ["/v1/.%2E/admin", "RELAY_DOT_SEGMENT"],
      ["/v1/%2e./admin", "RELAY_DOT_SEGMENT"],
      ["/v1/%2e/messages", "RELAY_DOT_SEGMENT"],
      ["/v1//messages", "RELAY_EMPTY_SEGMENT"],
      ["//evil.example/v1/messages", "RELAY_EMPTY_SEGMENT"],
      ["/v1/messages/", "RELAY_EMPTY_SEGMENT"],
      ["/", "RELAY_EMPTY_SEGMENT"],
      ["/v1\\messages", "RELAY_BACKSLASH"],
      ["/v1/messages\\..\\..\\admin", "RELAY_BACKSLASH"],
      ["/v1%2fmessages", "RELAY_ESCAPE"],
      ["/v1%2Fmessages", "RELAY_ESCAPE"],
      ["/v1%5cmessages", "RELAY_ESCAPE"],
      ["/v1/%252e%252e/admin", "RELAY_ESCAPE"],
      ["/v1/mess%00ages", "RELAY_ESCAPE"],
      ["/v1/mess%zzages", "RELAY_ESCAPE"],
      ["/v1/messages%", "RELAY_ESCAPE"],
      ["/v1/messages#x", "RELAY_FRAGMENT"],
      ["/v1/messages?beta=true#x", "RELAY_FRAGMENT"],
      ["http://evil/v1/messages", "RELAY_TARGET_FORM"],
      ["evil.example:443", "RELAY_TARGET_FORM"],
      ["*", "RELAY_TARGET_FORM"],
      ["/v1/mes sages", "RELAY_TARGET_CHARACTER"],
      ["/v1/messages\t", "RELAY_TARGET_CHARACTER"],
      ["/v1/messages\r\nx-api-key: k", "RELAY_TARGET_CHARACTER"],
      ["/v1/\u00e9", "RELAY_TARGET_CHARACTER"],
      ["/v1/messages\u007f", "RELAY_TARGET_CHARACTER"],
    ];
    for (const [target, code] of rows) {
      assert.equal(verdict("anthropic", "POST", target), code, JSON.stringify(target));
    }
  });

  test("a plain path that is not one of the API's own is refused as not allowed", () => {
    const rows: [ApiKind, string, string][] = [
      ["anthropic", "POST", "/v1/files"],
      ["anthropic", "GET", "/v1/files/file_1/content"],
      ["anthropic", "POST", "/v1/messages/batches"],
      ["anthropic", "GET", "/v1/organizations/api_keys"],
      ["anthropic", "POST", "/v1/complete"],
      ["anthropic", "POST", "/messages"],
      ["anthropic", "POST", "/v1/messages/count_tokens/x"],
      ["openai", "POST", "/v1/responses"],
      ["openai", "POST", "/files"],
      ["openai", "POST", "/chat/completions"],
      ["openai", "GET", "/organization/admin_api_keys"],
      ["gemini", "POST", "/v1beta/files"],
      ["gemini", "POST", "/v1beta/models/gemini-2.5-pro:predict"],
      ["gemini", "POST", "/v1beta/tunedModels/x:generateContent"],
      ["gemini", "POST", "/v1beta/models/-x:generateContent"],
      ["gemini", "POST", "/v2/models/gemini-2.5-pro:generateContent"],
      ["gemini", "POST", "/v1beta/models/gemini-2.5-pro:generateContent:x"],
      ["gemini", "GET", "/v1beta/cachedContents"],
    ];
    for (const [api, method, target] of rows) {
      assert.equal(verdict(api, method, target), "RELAY_PATH_NOT_ALLOWED", `${api} ${target}`);
    }
    const refused = checkRelayTarget("anthropic", "POST", "/v1/files");
    assert.ok(refused.kind === "refuse" && refused.refusal instanceof RelayPathNotAllowedError);
    assert.equal(refused.refusal.status, 404);
    assert.match(
      refused.refusal.hint ?? "",
      /POST \/v1\/messages, POST \/v1\/messages\/count_tokens/,
    );
  });

  test("an allowed path asked for with another method is refused with the methods it takes", () => {
    const rows: [ApiKind, string, string, string[]][] = [
      ["anthropic", "GET", "/v1/messages", ["POST"]],
      ["anthropic", "DELETE", "/v1/messages", ["POST"]],
      ["anthropic", "DELETE", "/v1/models/claude-x", ["GET"]],
      ["openai", "PUT", "/responses", ["POST"]],
      ["openai", "POST", "/models", ["GET"]],
      ["gemini", "GET", "/v1beta/models/gemini-2.5-pro:generateContent", ["POST"]],
    ];
    for (const [api, method, target, allow] of rows) {
      const checked = checkRelayTarget(api, method, target);
      assert.ok(checked.kind === "refuse", `${api} ${method} ${target}`);
      assert.ok(checked.refusal instanceof RelayMethodNotAllowedError, `${method} ${target}`);
      assert.equal(checked.refusal.status, 405);
      assert.deepEqual(checked.refusal.allow, allow);
    }
  });

  test("each API's own paths, as its CLI sends them, are forwarded with their query", () => {
    const rows: [ApiKind, string, string, string][] = [
      ["anthropic", "POST", "/v1/messages?beta=true", "beta=true"],
      ["anthropic", "POST", "/v1/messages/count_tokens?beta=true", "beta=true"],
      ["anthropic", "GET", "/v1/models?limit=20", "limit=20"],
      ["anthropic", "GET", "/v1/models/claude-sonnet-4-5-20250929", ""],
      ["openai", "POST", "/responses", ""],
      ["openai", "POST", "/responses/compact", ""],
      ["openai", "GET", "/models?client_version=0.171.0", "client_version=0.171.0"],
      ["gemini", "POST", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse", "alt=sse"],
      ["gemini", "POST", "/v1beta/models/gemini-2.5-flash-lite:generateContent", ""],
      ["gemini", "POST", "/v1beta/models/gemini-2.5-pro:countTokens", ""],
      ["gemini", "POST", "/v1beta/models/gemini-embedding-001:embedContent", ""],
      ["gemini", "POST", "/v1beta/models/text-embedding-004:batchEmbedContents", ""],
      ["gemini", "POST", "/v1/models/gemini-2.5-pro:generateContent?key=stolen", ""],
      ["gemini", "GET", "/v1beta/models?pageSize=50", "pageSize=50"],
    ];
    for (const [api, method, target, query] of rows) {
      const checked = checkRelayTarget(api, method, target);
      assert.ok(checked.kind === "forward", `${api} ${method} ${target}`);
      assert.deepEqual(checked.target, {
        path: target.split("?")[0],
        query,
      });
    }
  });

  test("the allow lists read as the docs show them", () => {
    assert.deepEqual(RELAY_APIS.anthropic.routes.map(routeText), [
      "POST /v1/messages",
      "POST /v1/messages/count_tokens",
      "GET /v1/models",
      "GET /v1/models/{model}",
    ]);
    assert.deepEqual(RELAY_APIS.openai.routes.map(routeText), [
      "POST /responses",
      "POST /responses/compact",
      "GET /models",
      "GET /models/{model}",
    ]);
    assert.deepEqual(RELAY_APIS.gemini.routes.map(routeText).slice(0, 7), [
      "POST /v1beta/models/{model}:generateContent",
      "POST /v1beta/models/{model}:streamGenerateContent",
      "POST /v1beta/models/{model}:countTokens",
      "POST /v1beta/models/{model}:embedContent",
      "POST /v1beta/models/{model}:batchEmbedContents",
      "GET /v1beta/models",
      "GET /v1beta/models/{model}",
    ]);
  });
});

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

/** A scripted upstream that records every request it gets and answers each with 200 `{}`. */
function recordingUpstream(): { server: ReturnType<typeof createServer>; seen: Seen[] } {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end("{}");
    });
  });
  return { server, seen };
}

/** Starts a relay for `api` in front of a recording upstream at `prefix`, runs `body`, stops. */
function withRelay(
  api: ApiKind,
  prefix: string,
  body: (socketPath: string, seen: readonly Seen[]) => Promise<void>,
): Promise<void> {
  return withRelayOver(
    recordingUpstream(),
    { api, prefix, apiKey: REAL_KEY, placeholderKey: PLACEHOLDER },
    (socketPath, upstream) => body(socketPath, upstream.seen),
  );
}

interface RawAnswer {
  readonly status: number;
  readonly head: string;
  readonly body: string;
}

/**
 * Sends `method target` byte for byte over the relay's socket (no client library that could
 * tidy the target first) and reads the answer until the relay closes the connection.
 */
function rawRequest(socketPath: string, method: string, target: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("latin1");
      const split = text.indexOf("\r\n\r\n");
      const head = split === -1 ? text : text.slice(0, split);
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0),
        head,
        body: split === -1 ? "" : text.slice(split + 4),
      });
    });
    const body = method === "POST" ? "{}" : "";
    socket.write(
      Buffer.from(
        `${method} ${target} HTTP/1.1\r\nhost: 127.0.0.1\r\nx-api-key: ${PLACEHOLDER}\r\n` +
          `content-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
        "latin1",
      ),
    );
  });
}

/** An answer of the relay's own, read in Anthropic's error shape. */
function anthropicError(answer: RawAnswer): { type: string; message: string } {
  const body = JSON.parse(answer.body) as {
    type: string;
    error: { type: string; message: string };
  };
  assert.equal(body.type, "error");
  return body.error;
}

describe("the relay refuses hostile targets without contacting the upstream", () => {
  test("each hostile target gets the relay's own 4xx and the upstream sees no request at all", async () => {
    await withRelay("anthropic", "/prefix", async (socketPath, seen) => {
      const rows: [string, string, number, string][] = [
        ["POST", "/../../admin/keys", 400, new RelayDotSegmentError().message],
        ["POST", "/v1/%2e%2e/admin", 400, new RelayDotSegmentError().message],
        ["POST", "/v1/%2E./admin", 400, new RelayDotSegmentError().message],
        ["POST", "/v1//messages", 400, new RelayEmptySegmentError().message],
        ["POST", "/v1\\messages", 400, new RelayBackslashError().message],
        ["POST", "/v1%2fmessages", 400, new RelayEscapeError().message],
        ["POST", "/v1/messages#x", 400, new RelayFragmentError().message],
        ["POST", "http://evil/v1/messages", 400, new RelayTargetFormError().message],
        ["OPTIONS", "*", 400, new RelayTargetFormError().message],
        [
          "POST",
          "/v1/files",
          404,
          "/v1/files is not a path the relay forwards to the anthropic API",
        ],
        ["GET", "/v1/messages", 405, "the relay forwards /v1/messages only as POST, not GET"],
        ["DELETE", "/v1/messages", 405, "the relay forwards /v1/messages only as POST, not DELETE"],
      ];
      for (const [method, target, status, message] of rows) {
        const answer = await rawRequest(socketPath, method, target);
        assert.equal(answer.status, status, `${method} ${target}: ${answer.head}`);
        const error = anthropicError(answer);
        assert.ok(error.message.startsWith(`warden relay: ${message}`), error.message);
        assert.ok(!answer.body.includes(REAL_KEY));
      }
      // Node's own parser refuses a space or a control character in the target (400, no
      // body), and a CONNECT is closed unanswered; neither reaches the relay's handler.
      for (const [method, target] of [
        ["POST", "/v1/mes sages"],
        ["POST", "/v1/\u0001messages"],
        ["CONNECT", "evil.example:443"],
      ] as const) {
        const answer = await rawRequest(socketPath, method, target);
        assert.ok(answer.status === 400 || answer.status === 0, `${method} ${target}`);
      }
      assert.deepEqual(seen, [], "the upstream saw no request");
    });
  });

  test("a refused method is answered with Allow, and in each API's own error shape", async () => {
    await withRelay("anthropic", "", async (socketPath) => {
      const answer = await rawRequest(socketPath, "DELETE", "/v1/models/claude-x");
      assert.equal(answer.status, 405);
      assert.match(answer.head, /\r\nallow: GET\r\n/i);
    });
    await withRelay("openai", "/v1", async (socketPath, seen) => {
      const answer = await rawRequest(socketPath, "POST", "/files");
      assert.equal(answer.status, 404);
      const body = JSON.parse(answer.body) as { error: { type: string; message: string } };
      assert.equal(body.error.type, "not_found_error");
      assert.match(body.error.message, /^warden relay: \/files is not a path/);
      assert.deepEqual(seen, []);
    });
    await withRelay("gemini", "", async (socketPath, seen) => {
      const dots = await rawRequest(socketPath, "POST", "/v1beta/models/%2e%2e/files");
      assert.equal(dots.status, 400);
      assert.equal(
        (JSON.parse(dots.body) as { error: { status: string } }).error.status,
        "INVALID_ARGUMENT",
      );
      const other = await rawRequest(socketPath, "POST", "/v1beta/files");
      assert.equal(other.status, 404);
      assert.equal(
        (JSON.parse(other.body) as { error: { status: string } }).error.status,
        "NOT_FOUND",
      );
      assert.deepEqual(seen, []);
    });
  });
});

/** One request through the relay's socket with Node's client; resolves with the status. */
function send(socketPath: string, method: string, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({
      socketPath,
      method,
      path,
      headers: { "x-api-key": PLACEHOLDER, authorization: `Bearer ${PLACEHOLDER}` },
    });
    req.on("response", (res) => {
      res.resume();
      res.on("end", () => {
        resolve(res.statusCode ?? 0);
      });
    });
    req.on("error", reject);
    req.end(method === "POST" ? "{}" : undefined);
  });
}

describe("the relay still forwards each API's own paths", () => {
  const cases: [
    ApiKind,
    string,
    string,
    [string, string][],
    (h: IncomingHttpHeaders) => unknown,
  ][] = [
    [
      "anthropic",
      "/gw",
      "x-api-key",
      [
        ["POST", "/v1/messages?beta=true"],
        ["POST", "/v1/messages/count_tokens?beta=true"],
        ["GET", "/v1/models?limit=5"],
        ["GET", "/v1/models/claude-sonnet-4-5"],
      ],
      (h) => h["x-api-key"],
    ],
    [
      "openai",
      "/v1",
      "bearer",
      [
        ["POST", "/responses"],
        ["POST", "/responses/compact"],
        ["GET", "/models?client_version=0.171.0"],
      ],
      (h) => h.authorization?.replace(/^Bearer /, ""),
    ],
    [
      "gemini",
      "",
      "x-goog-api-key",
      [
        ["POST", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"],
        ["POST", "/v1beta/models/gemini-2.5-pro:generateContent"],
        ["POST", "/v1beta/models/gemini-2.5-pro:countTokens"],
        ["POST", "/v1beta/models/gemini-embedding-001:embedContent"],
        ["POST", "/v1beta/models/gemini-embedding-001:batchEmbedContents"],
        ["GET", "/v1beta/models"],
        ["POST", "/v1/models/gemini-2.5-pro:generateContent"],
      ],
      (h) => h["x-goog-api-key"],
    ],
  ];
  for (const [api, prefix, how, requests, keyOf] of cases) {
    test(`${api}: every listed path reaches the upstream under its prefix with the real key (${how})`, async () => {
      await withRelay(api, prefix, async (socketPath, seen) => {
        for (const [method, path] of requests) {
          assert.equal(await send(socketPath, method, path), 200, `${method} ${path}`);
        }
        assert.deepEqual(
          seen.map((s) => `${s.method} ${s.url}`),
          requests.map(([method, path]) => `${method} ${prefix}${path}`),
        );
        for (const s of seen) assert.equal(keyOf(s.headers), REAL_KEY, s.url);
      });
    });
  }
});
