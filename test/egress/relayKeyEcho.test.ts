import { strict as assert } from "node:assert";
import { once } from "node:events";
import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from "node:http";
import { describe, test } from "node:test";
import { KeyScrubber, keyForms } from "../../src/egress/keyScrubber.js";
import { readAnswer, withRelayOver, type Answer } from "./relayFixture.js";

const REAL_KEY = "sk-ant-real-key-0123456789abcdef-REAL";
const PLACEHOLDER = "sk-ant-warden-placeholder-not-a-key";
const MARKED = "*".repeat(REAL_KEY.length);

/** Passes `chunks` through a scrubber's body stream, one write each, and joins what comes out. */
async function throughBody(scrubber: KeyScrubber, chunks: readonly string[]): Promise<string> {
  const stream = scrubber.body();
  const out: Buffer[] = [];
  stream.on("data", (chunk: Buffer) => out.push(chunk));
  for (const chunk of chunks) stream.write(Buffer.from(chunk, "latin1"));
  stream.end();
  await once(stream, "end");
  return Buffer.concat(out).toString("latin1");
}

/** The base64 text of `prefix + key + "zz"`: the key at one of base64's three alignments. */
function inBase64(prefix: string, key: string, urlSafe = false): string {
  return Buffer.from(`${prefix}${key}zz`).toString(urlSafe ? "base64url" : "base64");
}

describe("the key scrubber, on its own", () => {
  test("the key is overwritten one for one wherever the body is split into two chunks", async () => {
    const scrubber = new KeyScrubber(REAL_KEY);
    const body = `{"error":{"message":"invalid x-api-key ${REAL_KEY}","again":"${REAL_KEY}${REAL_KEY}"}}`;
    const expected = body.replaceAll(REAL_KEY, MARKED);
    for (let cut = 0; cut <= body.length; cut++) {
      const out = await throughBody(scrubber, [body.slice(0, cut), body.slice(cut)]);
      assert.equal(out, expected, `split at ${cut}`);
    }
    // One byte at a time: the longest split there is.
    const bytes = Array.from({ length: body.length }, (_, i) => body.slice(i, i + 1));
    assert.equal(await throughBody(scrubber, bytes), expected);
  });

  test("the key's JSON, percent and base64 forms are overwritten too, at every base64 alignment", async () => {
    // `"` and `/` change its JSON and percent forms; `~~~???` puts `+` and `/` into its base64.
    const key = 'k3y"with/special~~~???chars=0123456789abcdef';
    for (const prefix of ["", "a", "ab"]) {
      assert.notEqual(inBase64(prefix, key), inBase64(prefix, key, true).replaceAll("=", ""));
    }
    const scrubber = new KeyScrubber(key);
    const texts = [
      JSON.stringify({ key }),
      `https://x.example/?k=${encodeURIComponent(key)}`,
      `k=${encodeURIComponent(key).toLowerCase()}`,
      ...["", "a", "ab"].flatMap((prefix) => [
        `Basic ${inBase64(prefix, key)}`,
        `token ${inBase64(prefix, key, true)}`,
      ]),
    ];
    // Every form at once, in both orders: each is overwritten, whichever comes first.
    texts.push(`all ${texts.join(" ")} ${key}`, `all ${[...texts].reverse().join(" ")} ${key}`);
    for (const text of texts) {
      const out = await throughBody(scrubber, [text.slice(0, 20), text.slice(20)]);
      assert.notEqual(out, text, text);
      assert.equal(out.length, text.length, "one for one");
      for (const form of keyForms(key)) assert.ok(!out.includes(form.toString()), text);
      for (const word of out.split(" ")) {
        for (const decoded of [Buffer.from(word, "base64"), Buffer.from(word, "base64url")]) {
          assert.ok(!decoded.toString("latin1").includes(key), text);
        }
      }
    }
  });

  test("a short token has no base64 forms, so unrelated base64 data is never touched", () => {
    assert.deepEqual(
      keyForms("gw-token").map((form) => form.toString()),
      ["gw-token"],
    );
    assert.ok(keyForms(REAL_KEY).length > 1, "a real key's base64 forms are long enough");
  });

  test("a key that holds * is marked with another byte, so the marked answer cannot hold it again", async () => {
    // Marked with `*`, "kk*" would become "k**", which holds "k*" again.
    const scrubber = new KeyScrubber("k*");
    const out = await throughBody(scrubber, ["kk", "*k*"]);
    assert.equal(out, "k~~~~");
    assert.ok(!out.includes("k*"));
  });

  test("bytes that cannot start the key go on at once; only a possible start of it is held back", () => {
    const scrubber = new KeyScrubber(REAL_KEY);
    const event = scrubber.scan(Buffer.from("event: ping\ndata: {}\n\n"), false);
    assert.equal(event.out.toString(), "event: ping\ndata: {}\n\n");
    assert.equal(event.rest.length, 0);
    const start = scrubber.scan(Buffer.from(`data: ${REAL_KEY.slice(0, 9)}`), false);
    assert.equal(start.out.toString(), "data: ");
    assert.equal(start.rest.toString(), REAL_KEY.slice(0, 9));
  });
});

/**
 * A scripted upstream that echoes the key it was sent, in the way `x-test-echo` names. `let`
 * releases the second half of a held stream.
 */
function echoingUpstream() {
  const seen: IncomingHttpHeaders[] = [];
  let release: () => void = () => undefined;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    const key = String(req.headers["x-api-key"]);
    const half = Math.floor(key.length / 2);
    switch (req.headers["x-test-echo"]) {
      case "headers": {
        const body = JSON.stringify({
          type: "error",
          error: { type: "authentication_error", message: `invalid x-api-key: ${key}` },
        });
        res.writeHead(401, `Bad key ${key}`, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-echo-key": key,
          "www-authenticate": `Bearer realm="api", key="${key}"`,
          [`x-${key.toLowerCase()}`]: "named after the key",
          "set-cookie": [`a=${key}`, "b=1"],
        });
        res.end(body);
        return;
      }
      case "split":
        res.writeHead(200, { "content-type": "application/json" });
        res.write(`{"echo":"${key.slice(0, half)}`);
        setTimeout(() => res.end(`${key.slice(half)}"}`), 50);
        return;
      case "sse":
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(`event: a\ndata: {"k":"${key.slice(0, half)}`);
        void released.then(() => {
          res.write(`${key.slice(half)}"}\n\n`);
          res.write(`event: b\ndata: ${inBase64("ab", key)}\n\n`);
          res.end(`event: c\ndata: {"k":${JSON.stringify(key)}}\n\n`);
        });
        return;
      case "gzip":
        res.writeHead(200, { "content-type": "application/json", "content-encoding": "gzip" });
        res.end("not really gzip");
        return;
      case undefined:
      default:
        res.writeHead(404);
        res.end();
    }
  });
  return {
    server,
    seen,
    release: () => {
      release();
    },
  };
}

function ask(socketPath: string, echo: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = request({
      socketPath,
      method: "POST",
      path: "/v1/messages?beta=true",
      headers: { "x-api-key": PLACEHOLDER, "x-test-echo": echo, "accept-encoding": "gzip, br" },
    });
    req.on("response", resolve);
    req.on("error", reject);
    req.end("{}");
  });
}

/** Nothing of the answer, status line and headers included, holds the key or its lowercase. */
function assertNoKey(answer: Answer): void {
  const everything = JSON.stringify(answer);
  assert.ok(!everything.includes(REAL_KEY), everything);
  assert.ok(!everything.includes(REAL_KEY.toLowerCase()), everything);
}

describe("an upstream that echoes the key never gets it into the sandbox", () => {
  function withEcho(
    body: (socketPath: string, upstream: ReturnType<typeof echoingUpstream>) => Promise<void>,
  ): Promise<void> {
    const upstream = echoingUpstream();
    return withRelayOver(upstream, { apiKey: REAL_KEY, placeholderKey: PLACEHOLDER }, body, () => {
      // A failed test may leave a stream held: let it go, so nothing waits on it.
      upstream.release();
    });
  }

  test("the key in the status line, header values, a header name and the body is overwritten", async () => {
    await withEcho(async (socketPath, upstream) => {
      const answer = await readAnswer(await ask(socketPath, "headers"), "latin1");
      assert.equal(upstream.seen[0]?.["x-api-key"], REAL_KEY, "the upstream had the real key");
      assert.equal(answer.status, 401);
      assertNoKey(answer);
      assert.equal(answer.statusMessage, `Bad key ${MARKED}`);
      assert.equal(answer.headers["x-echo-key"], MARKED);
      assert.equal(answer.headers["www-authenticate"], `Bearer realm="api", key="${MARKED}"`);
      assert.deepEqual(answer.headers["set-cookie"], [`a=${MARKED}`, "b=1"]);
      assert.equal(answer.headers[`x-${REAL_KEY.toLowerCase()}`], undefined);
      const body = JSON.parse(answer.body) as { error: { message: string } };
      assert.equal(body.error.message, `invalid x-api-key: ${MARKED}`);
      assert.equal(Number(answer.headers["content-length"]), Buffer.byteLength(answer.body));
    });
  });

  test("a key split across two chunks of the body is overwritten", async () => {
    await withEcho(async (socketPath) => {
      const answer = await readAnswer(await ask(socketPath, "split"), "latin1");
      assert.equal(answer.status, 200);
      assertNoKey(answer);
      assert.equal(answer.body, `{"echo":"${MARKED}"}`);
    });
  });

  test(
    "in a server-sent event stream, the key is overwritten and held back only while it may be the key",
    { timeout: 5_000 },
    async () => {
      await withEcho(async (socketPath, upstream) => {
        const res = await ask(socketPath, "sse");
        assert.equal(res.headers["content-type"], "text/event-stream");
        const [first] = (await once(res, "data")) as [Buffer];
        // The first half of the key is held back; everything before it has come through.
        assert.equal(first.toString(), 'event: a\ndata: {"k":"');
        upstream.release();
        const rest = await readAnswer(res, "latin1");
        assertNoKey(rest);
        const events = first.toString() + rest.body;
        assert.ok(!events.includes(REAL_KEY));
        assert.ok(!events.includes(inBase64("ab", REAL_KEY).slice(4, 40)), "nor its base64");
        assert.match(
          events,
          new RegExp(`^event: a\ndata: \\{"k":"\\*{${REAL_KEY.length}}"\\}\n\n`),
        );
        assert.match(
          events,
          new RegExp(`event: c\ndata: \\{"k":"\\*{${REAL_KEY.length}}"\\}\n\n$`),
        );
      });
    },
  );

  test("the upstream is asked for an uncompressed answer, and a compressed one is refused", async () => {
    await withEcho(async (socketPath, upstream) => {
      const answer = await readAnswer(await ask(socketPath, "gzip"), "latin1");
      assert.equal(upstream.seen[0]?.["accept-encoding"], "identity");
      assert.equal(answer.status, 502);
      assert.match(answer.body, /compressed answer/);
    });
  });
});
