// The contract every agent's stream reader keeps, run against each of them (see
// streamReaders.test.ts). A reader reads what a sandboxed, possibly hostile program wrote, so:
// nothing it is fed makes it throw or yields an event past its bounds; a line over the size
// limit is skipped and counted; CRLF line ends read as LF ones; a long text is cut whole
// characters at a time; what it remembers stays bounded however many tool ids a stream names;
// usage is always a non-negative safe integer; every turn it opens it closes; and a stream read
// live, in whatever chunks it arrives, reads as the captured file does.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { AGENT_EVENT_LIMITS, type AgentEvent, type StreamReader } from "../../src/agents/index.js";
import { CLAUDE_LIMITS } from "../../src/agents/limits.js";
import { BLANK, HOSTILE_LINES, NOT_OBJECTS } from "./hostileLines.js";
import {
  capturedLines,
  capturedStreams,
  ofType,
  readLines,
  replayLive,
  UNSAFE,
  unreadableLinesOf,
} from "./streamKit.js";

/** How one agent's stream says the few things the contract feeds a reader. */
export interface StreamDialect {
  /** One line in which the agent writes `text` as the model's text. */
  readonly says: (text: string) => string;
  /** Lines that name tool id `id` wherever the stream carries one, leaving the call open. */
  readonly toolId: (id: string) => string[];
  /** Lines that report usage with these counts, whatever their JSON types. */
  readonly usage: (input: unknown, output: unknown) => string[];
}

export interface StreamSubject {
  readonly agent: string;
  /** A fresh reader for one run, as the agent's adapter makes it. */
  readonly reader: () => StreamReader;
  readonly dialect: StreamDialect;
  /** The captured streams of this agent; the first is the one replayed by a live process. */
  readonly golden: readonly [string, ...string[]];
  /**
   * Whether the reader reads its agent's stream into events. One that does not (the command's:
   * its output has no format warden knows) yields no event and counts no line, whatever it is fed.
   */
  readonly reads: boolean;
}

/** Ids and names in events, as every adapter cuts them. */
const NAME_BYTES = AGENT_EVENT_LIMITS.nameBytes;

/** A model's name in a session event: Claude's is the longest an adapter lets one be. */
const MODEL_BYTES = CLAUDE_LIMITS.modelBytes;

/**
 * The tool ids a stream names in the bounded-memory test, and where it is first measured. A
 * bounded reader holds about the same at both; one that keeps every id holds ten times more.
 */
const TOOL_IDS = 100_000;
const TOOL_IDS_MEASURED_FIRST = 10_000;
const HELD_GROWTH_ALLOWED = 1.1;

/** Usage counts no agent reports honestly: negative, fractional, huge, or not numbers. */
const HOSTILE_COUNTS: readonly unknown[] = [
  -5,
  -1,
  1.5,
  1e300,
  2 ** 53 + 2,
  "lots",
  "9",
  null,
  {},
  [],
  true,
];

const bytes = (text: string | undefined): number => Buffer.byteLength(text ?? "");

function isCount(n: number | undefined): boolean {
  return n === undefined || (Number.isSafeInteger(n) && n >= 0);
}

function isAmount(n: number | undefined): boolean {
  return n === undefined || (Number.isFinite(n) && n >= 0);
}

/** A line of a terminal: short enough, and free of anything a terminal acts on. */
function assertShown(text: string | undefined, maxBytes: number, what: string): void {
  assert.ok(bytes(text) <= maxBytes, `${what} has ${bytes(text)} bytes, over ${maxBytes}`);
  assert.doesNotMatch(text ?? "", UNSAFE, `${what} holds a character a terminal acts on`);
}

function assertCut(text: string | undefined, maxBytes: number, what: string): void {
  assert.ok(bytes(text) <= maxBytes, `${what} has ${bytes(text)} bytes, over ${maxBytes}`);
}

/** Every event within the bounds AgentEvent documents: texts cut, summaries and names clean. */
function assertWithinBounds(events: readonly AgentEvent[]): void {
  for (const event of events) {
    const what = `a ${event.type} event`;
    switch (event.type) {
      case "session":
        assertCut(event.sessionId, NAME_BYTES, `${what}'s session id`);
        assertCut(event.model, MODEL_BYTES, `${what}'s model`);
        break;
      case "turn_started":
      case "turn_ended":
        assert.ok(isCount(event.turn), `${what} has turn ${event.turn}`);
        break;
      case "assistant_text":
        assertCut(event.text, AGENT_EVENT_LIMITS.textBytes, `${what}'s text`);
        break;
      case "tool_use":
        assertCut(event.id, NAME_BYTES, `${what}'s id`);
        assertShown(event.name, NAME_BYTES, `${what}'s name`);
        assertShown(event.summary, AGENT_EVENT_LIMITS.summaryBytes, `${what}'s summary`);
        break;
      case "tool_result":
        assertCut(event.id, NAME_BYTES, `${what}'s id`);
        assertShown(event.summary, AGENT_EVENT_LIMITS.summaryBytes, `${what}'s summary`);
        break;
      case "usage":
        assertUsage(event);
        break;
      case "retry":
        assert.ok(isCount(event.attempt) && isCount(event.status), JSON.stringify(event));
        assertShown(event.message, AGENT_EVENT_LIMITS.summaryBytes, `${what}'s message`);
        break;
      case "permission_denied":
        assertShown(event.tool, NAME_BYTES, `${what}'s tool`);
        assertShown(event.summary, AGENT_EVENT_LIMITS.summaryBytes, `${what}'s summary`);
        break;
      case "output":
        assertCut(event.text, AGENT_EVENT_LIMITS.outputLineBytes, `${what}'s text`);
        break;
      case "result":
        assertCut(event.message, AGENT_EVENT_LIMITS.textBytes, `${what}'s message`);
        assert.ok(isCount(event.turns) && isAmount(event.costUSD), JSON.stringify(event));
        break;
    }
  }
}

function assertUsage(usage: Extract<AgentEvent, { type: "usage" }>): void {
  const { inputTokens, outputTokens, costUSD } = usage;
  assert.ok(isCount(inputTokens) && isCount(outputTokens), `tokens ${JSON.stringify(usage)}`);
  assert.ok(isAmount(costUSD), `cost ${JSON.stringify(usage)}`);
}

/**
 * About how much a value holds: one for each object, entry and element reachable from it, plus
 * the length of each string. A reader's fields are reachable; what a closure holds is not.
 */
function heldSize(root: unknown): number {
  const seen = new Set<object>();
  const pending: unknown[] = [root];
  let size = 0;
  while (pending.length > 0) {
    const value = pending.pop();
    if (typeof value === "string") size += value.length;
    if (typeof value !== "object" || value === null || seen.has(value)) continue;
    seen.add(value);
    size += 1;
    const inside = value instanceof Map || value instanceof Set ? [...value] : Object.values(value);
    for (const item of inside) pending.push(item);
  }
  return size;
}

/** A line `build` makes that is exactly `total` bytes long, padded inside the text it says. */
function lineOfBytes(build: (text: string) => string, total: number): string {
  const line = build("x".repeat(total - bytes(build(""))));
  assert.equal(bytes(line), total, "the dialect's line grows by one byte a character");
  return line;
}

export function streamReaderContract(subject: StreamSubject): void {
  const { agent, dialect, reads } = subject;
  const fresh = subject.reader;

  describe(`the stream reader contract (${agent})`, () => {
    test("no line of the shared hostile corpus or of any captured stream makes it throw, and its events stay within their bounds", () => {
      const reader = fresh();
      const events = readLines(reader, HOSTILE_LINES);
      assertWithinBounds(events);
      assert.equal(
        events.length > 0,
        reads,
        "the corpus yields events only from a reader that reads",
      );
      for (const name of capturedStreams()) {
        const fromCapture = readLines(fresh(), capturedLines(name));
        assertWithinBounds(fromCapture);
        if (!reads) assert.deepEqual(fromCapture, [], name);
        else if (subject.golden.includes(name)) assert.notEqual(fromCapture.length, 0, name);
      }
    });

    test("each line that is not a JSON object yields nothing and is counted; blank lines are not counted", () => {
      const reader = fresh();
      for (const line of [...NOT_OBJECTS, ...BLANK]) {
        assert.deepEqual(reader.line(line), [], JSON.stringify(line.slice(0, 40)));
      }
      assert.equal(unreadableLinesOf(reader), reads ? NOT_OBJECTS.length : undefined);
    });

    test("a line over the size limit, by one byte or by 20 MiB, yields nothing, is counted, and the reader reads on", () => {
      const reader = fresh();
      const justOver = lineOfBytes(dialect.says, AGENT_EVENT_LIMITS.lineBytes + 1);
      assert.deepEqual(reader.line(justOver), []);
      assert.deepEqual(reader.line(dialect.says("y".repeat(20 * 1024 * 1024))), []);
      assert.equal(unreadableLinesOf(reader), reads ? 2 : undefined);
      const after = readLines(reader, [dialect.says("after")]);
      assert.deepEqual(after, readLines(fresh(), [dialect.says("after")]));
      assert.equal(ofType(after, "assistant_text").length, reads ? 1 : 0);
    });

    test("lines ending in CRLF read as the same lines ending in LF, even a line at the size limit", () => {
      for (const name of subject.golden) {
        const lines = capturedLines(name);
        const crlf = lines.map((line) => `${line}\r`);
        assert.deepEqual(readLines(fresh(), crlf), readLines(fresh(), lines), name);
      }
      const atLimit = lineOfBytes(dialect.says, AGENT_EVENT_LIMITS.lineBytes);
      const withLf = readLines(fresh(), [atLimit]);
      assert.deepEqual(readLines(fresh(), [`${atLimit}\r`]), withLf);
      assert.equal(ofType(withLf, "assistant_text").length, reads ? 1 : 0);
    });

    test("a text over the limit of an event is cut at a character boundary and flagged", () => {
      const said = "é".repeat(AGENT_EVENT_LIMITS.textBytes);
      const texts = ofType(readLines(fresh(), [dialect.says(said)]), "assistant_text");
      assert.equal(texts.length, reads ? 1 : 0);
      for (const { text, cut } of texts) {
        assert.equal(cut, true);
        assert.ok(bytes(text) <= AGENT_EVENT_LIMITS.textBytes, `${bytes(text)} bytes`);
        assert.match(text, /^é+$/u);
      }
    });

    test(`after ${TOOL_IDS} tool ids it holds no more than after ${TOOL_IDS_MEASURED_FIRST}`, () => {
      const reader = fresh();
      const name = (i: number) => `toolu_${String(i).padStart(6, "0")}`;
      const feed = (from: number, to: number) => {
        for (let i = from; i < to; i += 1) {
          for (const line of dialect.toolId(name(i))) reader.line(line);
        }
      };
      feed(0, TOOL_IDS_MEASURED_FIRST);
      const first = heldSize(reader);
      feed(TOOL_IDS_MEASURED_FIRST, TOOL_IDS);
      const last = heldSize(reader);
      assert.ok(
        last <= first * HELD_GROWTH_ALLOWED,
        `it held ${first} after ${TOOL_IDS_MEASURED_FIRST}, ${last} after ${TOOL_IDS}`,
      );
    });

    test("usage is a non-negative safe integer whatever counts the stream claims, and however many", () => {
      const lines = [
        ...HOSTILE_COUNTS.flatMap((a) => HOSTILE_COUNTS.flatMap((b) => dialect.usage(a, b))),
        ...Array.from({ length: 3 }, () =>
          dialect.usage(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
        ).flat(),
      ];
      const usage = ofType(readLines(fresh(), lines), "usage");
      for (const event of usage) assertUsage(event);
      assert.equal(usage.length > 0, reads, "usage is reported only by a reader that reads");
    });

    test("on every captured stream of the agent, and on one cut off as the model writes, each turn that starts ends, in order", () => {
      const streams = subject.golden.map((name) => ({ name, lines: capturedLines(name) }));
      streams.push({ name: "a stream cut off", lines: [dialect.says("Working on it")] });
      for (const { name, lines } of streams) {
        const events = readLines(fresh(), lines);
        const started = ofType(events, "turn_started").map((t) => t.turn);
        const ended = ofType(events, "turn_ended").map((t) => t.turn);
        assert.deepEqual(ended, started, name);
      }
    });

    test("a captured stream a live process writes in arbitrary chunks reads as the whole file does", async () => {
      const [name] = subject.golden;
      const whole = readLines(fresh(), capturedLines(name));
      for (const seed of [1, 7, 1234]) {
        const { events, code } = await replayLive(name, fresh(), { seed });
        assert.equal(code, 0);
        assert.deepEqual(events, whole, `${name}, seed ${seed}`);
      }
    });
  });
}
