import { strict as assert } from "node:assert";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import fc from "fast-check";
import {
  BadResultsError,
  LIMITS,
  Log,
  RESULT_FILE_NAMES,
  cleanLine,
  cleanText,
  formatResult,
  receiveResults,
  type ResultFileName,
} from "../../src/protocol/index.js";
import { END, body, file, header } from "./tarBytes.js";

/** Is `text` free of everything a terminal could act on (the newline aside)? */
function unsafeAt(text: string): number {
  let i = 0;
  for (const ch of text) {
    const cp = ch.codePointAt(0) ?? 0;
    const control = (cp < 0x20 && cp !== 0x0a) || (cp >= 0x7f && cp <= 0x9f);
    const surrogate = cp >= 0xd800 && cp <= 0xdfff;
    const special = cp === 0x2028 || cp === 0x2029 || cp === 0xfffd;
    if (control || surrogate || special || /\p{Cf}/u.test(ch)) return i;
    i += ch.length;
  }
  return -1;
}

/** Strings rich in what matters: any UTF-16 unit (lone surrogates too), any code point, and the usual suspects. */
const hostileString = fc.string({
  unit: fc.oneof(
    fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)),
    fc.string({ unit: "binary", minLength: 1, maxLength: 1 }),
    fc.constantFrom(
      "\r\n",
      "\r",
      "\n",
      "\t",
      "\x1b[31m",
      "\u202E",
      "\u2028",
      "\u2029",
      "\uFFFD",
      "\u200B",
      "\x85",
      "\u{E0041}",
      "a",
      "é",
      "🎉",
    ),
  ),
  maxLength: 200,
});

/** Bytes rich in UTF-8 edge cases: valid sequences, lone lead and continuation bytes, overlongs. */
const hostileBytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc
    .array(
      fc.oneof(
        fc.uint8Array({ minLength: 1, maxLength: 4 }),
        hostileString.map((s) => new Uint8Array(Buffer.from(s))),
        fc.constantFrom(
          new Uint8Array([0xc0, 0x80]),
          new Uint8Array([0xed, 0xa0, 0x80]),
          new Uint8Array([0xf4, 0x90, 0x80, 0x80]),
          new Uint8Array([0xe2, 0x80, 0xae]),
          new Uint8Array([0xc2, 0x9b]),
          new Uint8Array([0xef, 0xbf, 0xbd]),
        ),
      ),
      { maxLength: 40 },
    )
    .map((parts) => new Uint8Array(Buffer.concat(parts))),
);

/**
 * The rule for bad bytes read literally, one byte at a time (Unicode Table 3-7): each maximal run
 * of bytes that do not start a well-formed sequence becomes one U+FFFD. cleanText does the same
 * faster; this is what it is checked against.
 */
function referenceDecode(bytes: Uint8Array): string {
  const wellFormedLength = (i: number): number => {
    const b0 = bytes[i] ?? 0;
    const within = (k: number, lo: number, hi: number): boolean => {
      const v = bytes[i + k];
      return v !== undefined && v >= lo && v <= hi;
    };
    if (b0 < 0x80) return 1;
    if (b0 >= 0xc2 && b0 <= 0xdf) return within(1, 0x80, 0xbf) ? 2 : 0;
    const second: [number, number] =
      b0 === 0xe0
        ? [0xa0, 0xbf]
        : b0 === 0xed
          ? [0x80, 0x9f]
          : b0 === 0xf0
            ? [0x90, 0xbf]
            : b0 === 0xf4
              ? [0x80, 0x8f]
              : [0x80, 0xbf];
    const n = b0 >= 0xe0 && b0 <= 0xef ? 3 : b0 >= 0xf0 && b0 <= 0xf4 ? 4 : 0;
    if (n === 0 || !within(1, ...second)) return 0;
    for (let k = 2; k < n; k++) if (!within(k, 0x80, 0xbf)) return 0;
    return n;
  };
  let out = "";
  let i = 0;
  while (i < bytes.length) {
    const n = wellFormedLength(i);
    if (n > 0) {
      out += Buffer.from(bytes.subarray(i, i + n)).toString("utf8");
      i += n;
      continue;
    }
    out += "\uFFFD";
    while (i < bytes.length && wellFormedLength(i) === 0) i++;
  }
  return out;
}

describe("cleanText properties", () => {
  test("cleanText of bytes turns each maximal run of bad bytes into one ?, exactly", () => {
    fc.assert(
      fc.property(hostileBytes, (bytes) => {
        assert.equal(cleanText(bytes), cleanText(referenceDecode(bytes)));
      }),
      { numRuns: 3000 },
    );
  });

  test("cleanText output never holds a control or format character but the newline, for any string", () => {
    fc.assert(
      fc.property(hostileString, (text) => {
        const cleaned = cleanText(text);
        assert.equal(unsafeAt(cleaned), -1, JSON.stringify(cleaned));
        assert.equal(cleanText(cleaned), cleaned, "cleaning twice changes nothing");
      }),
      { numRuns: 2000 },
    );
  });

  test("cleanText output never holds a control or format character but the newline, for any bytes", () => {
    fc.assert(
      fc.property(hostileBytes, (bytes) => {
        const cleaned = cleanText(bytes);
        assert.equal(unsafeAt(cleaned), -1, JSON.stringify(cleaned));
        assert.ok(Buffer.byteLength(cleaned) <= bytes.length, "cleaning never makes text longer");
      }),
      { numRuns: 2000 },
    );
  });

  test("cleanLine output is one line", () => {
    fc.assert(
      fc.property(fc.oneof(hostileString, hostileBytes), (text) => {
        const line = cleanLine(text);
        assert.ok(!line.includes("\n"));
        assert.equal(unsafeAt(line), -1);
      }),
      { numRuns: 1000 },
    );
  });

  test("text that is already safe comes out as it went in", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), (text) => {
        fc.pre(unsafeAt(text) === -1 && !text.includes("\r"));
        assert.equal(cleanText(text), text);
        assert.equal(cleanText(Buffer.from(text)), text);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("Log properties", () => {
  test("however the chunks fall, every log line is labelled, clean and within the cap", () => {
    const prefix = /^\d\d:\d\d:\d\d agent\[01jabcde\]: /;
    fc.assert(
      fc.property(
        fc.array(fc.oneof(hostileString, hostileBytes, fc.constant("x".repeat(3000))), {
          maxLength: 12,
        }),
        fc.boolean(),
        (chunks, end) => {
          const lines: string[] = [];
          const writer = new Log((line) => lines.push(line), "01jabcdefghjkmnpqrstvwxyz0").writer(
            "agent",
          );
          for (const chunk of chunks) writer.write(chunk);
          if (end) writer.end();
          for (const line of lines) {
            assert.match(line, prefix);
            assert.ok(!line.includes("\n"));
            assert.equal(unsafeAt(line), -1);
            assert.ok(Buffer.byteLength(line) <= LIMITS.logLineBytes);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

const LIMITS_FOR_TEST: Partial<Record<ResultFileName, number>> = {
  "transcript.jsonl": 2000,
  "agent.log": 1000,
  "changes.bundle": 1500,
};
const limitOf = (name: ResultFileName): number => LIMITS_FOR_TEST[name] ?? LIMITS.resultBytes;

const resultBytes = formatResult({
  agent: "command",
  timedOut: false,
  leftovers: false,
  truncated: [],
  warnings: [],
});

/** A valid archive to mutate. */
const VALID = Buffer.concat([
  file("agent.log", "log line\n".repeat(70)),
  file("changes.bundle", Buffer.alloc(100, 7)),
  file("result.json", resultBytes),
  END,
]);

type Mutation =
  | { op: "set"; at: number; value: number }
  | { op: "cut"; at: number }
  | { op: "insert"; at: number; bytes: Uint8Array }
  | { op: "delete"; at: number; length: number };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant("set" as const), at: fc.nat(), value: fc.nat({ max: 255 }) }),
  fc.record({ op: fc.constant("cut" as const), at: fc.nat() }),
  fc.record({
    op: fc.constant("insert" as const),
    at: fc.nat(),
    bytes: fc.uint8Array({ maxLength: 1100 }),
  }),
  fc.record({ op: fc.constant("delete" as const), at: fc.nat(), length: fc.nat({ max: 1100 }) }),
);

function mutate(bytes: Buffer, mutations: Mutation[]): Buffer {
  let out = Buffer.from(bytes);
  for (const m of mutations) {
    const at = out.length === 0 ? 0 : m.at % out.length;
    switch (m.op) {
      case "set":
        if (out.length > 0) out[at] = m.value;
        break;
      case "cut":
        out = out.subarray(0, at);
        break;
      case "insert":
        out = Buffer.concat([out.subarray(0, at), m.bytes, out.subarray(at)]);
        break;
      case "delete":
        out = Buffer.concat([out.subarray(0, at), out.subarray(at + m.length)]);
        break;
    }
  }
  return out;
}

/** Archives made of well-formed headers (right checksums) with hostile names, types and sizes. */
const GOOD_NAMES = ["transcript.jsonl", "agent.log", "changes.bundle"];
const BAD_NAMES = [
  "result.json",
  "../agent.log",
  "/tmp/x",
  "a/b",
  "..",
  ".",
  "result.json/",
  "../sentinel",
  "\x1b[2J",
];
function mostly<T>(usual: fc.Arbitrary<T>, rare: fc.Arbitrary<T>): fc.Arbitrary<T> {
  return fc.oneof({ arbitrary: usual, weight: 6 }, { arbitrary: rare, weight: 1 });
}
const structured = fc
  .tuple(
    fc.array(
      fc.record({
        name: mostly(fc.constantFrom(...GOOD_NAMES), fc.constantFrom(...BAD_NAMES)),
        type: mostly(
          fc.constantFrom("0", "\0"),
          fc.constantFrom("1", "2", "5", "x", "L", "g", "7"),
        ),
        size: mostly(fc.nat({ max: 1200 }), fc.oneof(fc.nat({ max: 2500 }), fc.constant(2 ** 33))),
        bodyLength: mostly(fc.constant(null), fc.nat({ max: 2500 })),
        magic: mostly(
          fc.constantFrom("posix" as const, "gnu" as const),
          fc.constant("none" as const),
        ),
        prefix: mostly(fc.constant(undefined), fc.constantFrom("..", "/", "x")),
      }),
      { maxLength: 3 },
    ),
    mostly(fc.constant(true), fc.constant(false)),
    mostly(fc.constantFrom(1024, 10240), fc.constantFrom(0, 512, 70000)),
    mostly(fc.constant(null), fc.uint8Array({ minLength: 1, maxLength: 20 })),
  )
  .map(([entries, endWithResult, trailer, garbage]) => {
    const parts: Buffer[] = [];
    const result = {
      name: "result.json",
      type: "0",
      size: 0,
      bodyLength: null,
      magic: "posix" as const,
      prefix: undefined,
    };
    const all = endWithResult ? [...entries, result] : entries;
    for (const e of all) {
      const isResult = e.name === "result.json";
      const size = isResult ? resultBytes.length : e.size;
      const content = isResult ? resultBytes : Buffer.alloc(Math.min(size, 4096), 0x41);
      parts.push(header({ name: e.name, size, type: e.type, magic: e.magic, prefix: e.prefix }));
      const length = e.bodyLength ?? content.length;
      parts.push(body(Buffer.concat([content, Buffer.alloc(length)]).subarray(0, length)));
    }
    parts.push(Buffer.alloc(trailer));
    if (garbage !== null) parts.push(Buffer.from(garbage));
    return Buffer.concat(parts);
  });

/** Cuts bytes into chunks at the given points, as a pipe might. */
function chunked(bytes: Buffer, cuts: number[]): Buffer[] {
  const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort(
    (a, b) => a - b,
  );
  const chunks: Buffer[] = [];
  let start = 0;
  for (const p of points) {
    if (p > start) chunks.push(bytes.subarray(start, p));
    start = Math.max(start, p);
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

describe("receiveResults properties", () => {
  let root = "";
  let runs = 0;
  let received = 0;
  before(() => {
    root = mkdtempSync(join(tmpdir(), "warden-props-"));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  const receivedCount = (): void => {
    received++;
  };

  /** Receives into parent/out beside a sentinel, and checks the whole tree afterwards. */
  async function receiveAndCheck(bytes: Buffer, cuts: number[]): Promise<void> {
    const parent = join(root, `p${runs++}`);
    mkdirSync(parent);
    const dir = join(parent, "out");
    mkdirSync(dir);
    writeFileSync(join(parent, "sentinel"), "untouched");
    let failed = false;
    try {
      const received = await receiveResults(Readable.from(chunked(bytes, cuts)), {
        dir,
        limits: LIMITS_FOR_TEST,
      });
      for (const [name, info] of Object.entries(received.files)) {
        assert.equal(statSync(info.path).size, info.bytes);
        assert.ok(info.bytes <= limitOf(name as ResultFileName));
      }
      assert.deepEqual(readdirSync(dir).sort(), Object.keys(received.files).sort());
      receivedCount();
    } catch (error) {
      if (!(error instanceof BadResultsError)) throw error;
      failed = true;
    }
    assert.deepEqual(readdirSync(parent).sort(), ["out", "sentinel"], "nothing written beside dir");
    assert.equal(readFileSync(join(parent, "sentinel"), "utf8"), "untouched");
    for (const name of readdirSync(dir)) {
      assert.ok((RESULT_FILE_NAMES as readonly string[]).includes(name), `unexpected ${name}`);
      const stat = statSync(join(dir, name));
      assert.ok(stat.isFile());
      assert.ok(stat.size <= limitOf(name as ResultFileName), `${name} is ${stat.size} bytes`);
    }
    if (failed) assert.deepEqual(readdirSync(dir), [], "a refusal leaves nothing");
    rmSync(parent, { recursive: true });
  }

  const cuts = fc.array(fc.nat(), { maxLength: 8 });

  test("arbitrary bytes never write outside dir nor over the limits", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 4096 }).map((bytes) => Buffer.from(bytes)),
        cuts,
        receiveAndCheck,
      ),
      { numRuns: 200 },
    );
  });

  test("arbitrary mutations of a valid archive never write outside dir nor over the limits", async () => {
    const before = received;
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 4 }), cuts, (mutations, c) =>
        receiveAndCheck(mutate(VALID, mutations), c),
      ),
      { numRuns: 300 },
    );
    // Mutations inside a body keep an archive valid: some runs must have been received whole.
    assert.ok(received > before, "no mutated archive was received");
  });

  test("well-formed archives of hostile entries never write outside dir nor over the limits", async () => {
    const before = received;
    await fc.assert(fc.asyncProperty(structured, cuts, receiveAndCheck), { numRuns: 300 });
    assert.ok(received > before, "no well-formed archive was received");
  });

  test("the valid archive itself is received, so the properties above are not vacuous", async () => {
    await receiveAndCheck(VALID, []);
    const dir = join(root, "valid");
    mkdirSync(dir);
    const received = await receiveResults(Readable.from([VALID]), { dir, limits: LIMITS_FOR_TEST });
    assert.deepEqual(Object.keys(received.files).sort(), [
      "agent.log",
      "changes.bundle",
      "result.json",
    ]);
  });
});
