// A task's spend record and the data directory's ledger: hostile numbers and damaged files never
// lower a recorded cost, and several processes appending at once lose nothing.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { appendFile, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { SpendRecordDamagedError } from "../../../src/host/errors.js";
import {
  appendLedger,
  LedgerTail,
  ledgerLineCost,
  ledgerPath,
  utcDay,
} from "../../../src/host/spending/spendLedger.js";
import {
  readSpendRecord,
  startingTotals,
  writeSpendRecord,
} from "../../../src/host/spending/spendRecord.js";
import { addUsage, NO_SPEND, type SpendTotals } from "../../../src/host/spending/spendTotals.js";
import { SPEND_LIMITS } from "../../../src/host/spending/limits.js";

const TASK = "0" + "1".repeat(25);
const NOON = Date.UTC(2026, 11, 1, 12);

function usage(costUSD: number, tokens = 0): Parameters<typeof addUsage>[1] {
  return {
    model: "m",
    costUSD,
    inputTokens: tokens,
    outputTokens: tokens,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
  };
}

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "warden-spend-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("the totals of a task's spend", () => {
  test("an increase that is negative, NaN, not a number or missing adds nothing", () => {
    let totals = addUsage(NO_SPEND, usage(0.5, 100));
    for (const hostile of [-1, -Infinity, NaN, "7" as unknown as number, undefined]) {
      const next = addUsage(totals, { costUSD: hostile, inputTokens: hostile });
      assert.equal(next.costUSD, 0.5);
      assert.equal(next.inputTokens, 100);
      totals = next;
    }
  });

  test("an absurd or infinite increase saturates the total and never makes it Infinity", () => {
    const huge = addUsage(NO_SPEND, { costUSD: Infinity, inputTokens: 1e300 });
    assert.equal(huge.costUSD, SPEND_LIMITS.maxRecordedUSD);
    assert.equal(huge.inputTokens, SPEND_LIMITS.maxTokens);
    const more = addUsage(huge, usage(1e12, 1e12));
    assert.equal(more.costUSD, SPEND_LIMITS.maxRecordedUSD);
    assert.ok(Number.isSafeInteger(more.inputTokens));
  });
});

describe("a task's spend record", () => {
  test("what is written is read back, and a missing record is a task that spent nothing", async () => {
    const path = join(root, "written.json");
    assert.deepEqual(await startingTotals(path), NO_SPEND);
    const totals: SpendTotals = { ...addUsage(NO_SPEND, usage(0.25, 1000)) };
    await writeSpendRecord(path, totals, NOON);
    assert.deepEqual(await startingTotals(path), totals);
  });

  const damaged: readonly [string, string][] = [
    ["torn", '{"version":1,"costUSD":3,"inputTok'],
    ["negative", record({ costUSD: -5 })],
    ["absurd", record({ costUSD: 1e308 })],
    ["not a number", record({ costUSD: "12" })],
    ["fractional tokens", record({ inputTokens: 1.5 })],
    ["without a version", JSON.stringify({ ...NO_SPEND })],
    ["not an object", "[1,2,3]"],
  ];
  for (const [name, text] of damaged) {
    test(`a ${name} record is refused, never read as a lower cost`, async () => {
      const path = join(root, `${name.replace(/ /g, "-")}.json`);
      await writeFile(path, text);
      assert.equal((await readSpendRecord(path)).kind, "damaged");
      await assert.rejects(startingTotals(path), SpendRecordDamagedError);
    });
  }

  test("a record that is a symbolic link is refused, not followed", async () => {
    const target = join(root, "elsewhere.json");
    await writeSpendRecord(target, addUsage(NO_SPEND, usage(9)), NOON);
    const path = join(root, "linked.json");
    await symlink(target, path);
    assert.equal((await readSpendRecord(path)).kind, "damaged");
  });

  test("a record past its size bound is refused", async () => {
    const path = join(root, "large.json");
    await writeFile(path, record({ pad: "x".repeat(SPEND_LIMITS.recordBytes) }));
    assert.equal((await readSpendRecord(path)).kind, "damaged");
  });
});

function record(over: Record<string, unknown>): string {
  return JSON.stringify({ version: 1, updatedAt: NOON, ...NO_SPEND, costUSD: 1, ...over });
}

function line(over: Record<string, unknown>): string {
  return JSON.stringify({ at: NOON, task: TASK, ...NO_SPEND, costUSD: 1, ...over });
}

describe("the spend ledger", () => {
  test("a line that is torn, negative, absurd, not JSON, too long or without a task never counts", () => {
    assert.equal(ledgerLineCost(line({ costUSD: 0.125 })), 0.125);
    for (const hostile of [
      line({ costUSD: -3 }),
      line({ costUSD: 1e308 }),
      line({ costUSD: "5" }),
      line({ costUSD: null }),
      line({ task: "../../etc" }),
      line({ costUSD: 2 }).slice(0, -1),
      "not json",
      line({ pad: "x".repeat(SPEND_LIMITS.ledgerLineBytes) }),
    ]) {
      assert.equal(ledgerLineCost(hostile), undefined, hostile.slice(0, 60));
    }
  });

  test("the day's total reads only new lines, ignores hostile ones and never goes down", async () => {
    const dataDir = await mkdtemp(join(root, "tail-"));
    const tail = new LedgerTail(dataDir);
    assert.equal(await tail.read(NOON), 0);
    await appendLedger(dataDir, { at: NOON, task: TASK, ...NO_SPEND, costUSD: 1.5 });
    assert.equal(await tail.read(NOON), 1.5);
    const path = ledgerPath(dataDir, utcDay(NOON));
    await appendFile(path, line({ costUSD: -100 }) + "\n" + line({ costUSD: 1e300 }) + "\n");
    await appendLedger(dataDir, { at: NOON, task: TASK, ...NO_SPEND, costUSD: 0.5 });
    assert.equal(await tail.read(NOON), 2);
    assert.equal(tail.ignored, 2);
    // Someone cuts the file: what was read stays counted.
    await writeFile(path, "");
    assert.equal(await tail.read(NOON), 2);
    // A new UTC day starts from nothing.
    assert.equal(await tail.read(NOON + 24 * 3600_000), 0);
  });

  test("a line torn by a crash is ended by the next writer and counts for nothing", async () => {
    const dataDir = await mkdtemp(join(root, "torn-"));
    await appendLedger(dataDir, { at: NOON, task: TASK, ...NO_SPEND, costUSD: 1 });
    const path = ledgerPath(dataDir, utcDay(NOON));
    // What a writer killed half way through its line leaves.
    await appendFile(path, line({ costUSD: 1000 }).slice(0, 30));
    const tail = new LedgerTail(dataDir);
    assert.equal(await tail.read(NOON), 1, "a line without its newline is not read yet");
    await appendLedger(dataDir, { at: NOON, task: TASK, ...NO_SPEND, costUSD: 0.25 });
    assert.equal(await tail.read(NOON), 1.25);
    const lines = (await readFile(path, "utf8")).split("\n");
    assert.equal(lines.length, 4, "the fragment, the two lines and the end");
  });

  test("four processes appending at once lose no line and tear none", async () => {
    const dataDir = await mkdtemp(join(root, "many-"));
    const writers = 4;
    const each = 100;
    const script = `
      import { appendLedger } from ${JSON.stringify(new URL("../../../src/host/spending/spendLedger.ts", import.meta.url).href)};
      const [dataDir, task, n, at] = process.argv.slice(1);
      for (let i = 0; i < Number(n); i++) {
        await appendLedger(dataDir, { at: Number(at), task, costUSD: 0.01, inputTokens: i,
          outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 });
      }`;
    await Promise.all(
      Array.from({ length: writers }, (_, w) => {
        const task = String(w) + "a".repeat(25);
        const child = spawn(
          process.execPath,
          [
            "--import",
            "tsx",
            "--input-type=module",
            "-e",
            script,
            dataDir,
            task,
            String(each),
            String(NOON),
          ],
          { stdio: ["ignore", "ignore", "inherit"] },
        );
        return new Promise<void>((resolve, reject) => {
          child.on("exit", (code) => {
            if (code === 0) resolve();
            else reject(new Error(`writer ${w} exited with ${code}`));
          });
        });
      }),
    );
    const text = await readFile(ledgerPath(dataDir, utcDay(NOON)), "utf8");
    const lines = text.split("\n").filter((l) => l !== "");
    assert.equal(lines.length, writers * each);
    for (const l of lines) assert.equal(ledgerLineCost(l), 0.01);
    const total = await new LedgerTail(dataDir).read(NOON);
    assert.ok(Math.abs(total - writers * each * 0.01) < 1e-9, String(total));
  });
});
