// The host's spend gate against a real store: a task's cap, a tree's cap over a parent and its
// children, the data directory's daily cap, throttled usage events, and hostile records of
// other tasks that never lower what a tree has spent.
import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { RequestUsage } from "../../../src/egress/index.js";
import { taskLayout } from "../../../src/host/index.js";
import {
  TaskSpending,
  type BudgetRefusal,
  type SpendingOptions,
  type SpendTotals,
} from "../../../src/host/spending/index.js";
import { SPEND_LIMITS } from "../../../src/host/spending/limits.js";
import { appendLedger } from "../../../src/host/spending/spendLedger.js";
import { writeSpendRecord } from "../../../src/host/spending/spendRecord.js";
import { NO_SPEND } from "../../../src/host/spending/spendTotals.js";
import { Tasks } from "../../../src/store/index.js";

function request(costUSD: number): RequestUsage {
  return {
    model: "claude-sonnet-4-5",
    inputTokens: 1000,
    outputTokens: 100,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    costUSD,
  };
}

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "warden-gate-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

async function store(): Promise<Tasks> {
  return Tasks.open({ dataDir: await mkdtemp(join(root, "data-")), env: {} });
}

/** A task whose settings hold a cap, as the host's would. */
async function task(tasks: Tasks, cap: number | undefined, parent: string | null = null) {
  const settings = { guest: cap === undefined ? {} : { maxBudgetUSD: cap } };
  const made = await tasks.create({ prompt: "p", settings, parent });
  return (await tasks.get(made.id)).spec;
}

interface Opened {
  gate: TaskSpending;
  usage: SpendTotals[];
  refusals: BudgetRefusal[];
  warnings: string[];
}

async function open(
  tasks: Tasks,
  spec: { id: string; ancestors: string[] },
  over: Partial<SpendingOptions> = {},
): Promise<Opened> {
  const usage: SpendTotals[] = [];
  const refusals: BudgetRefusal[] = [];
  const warnings: string[] = [];
  const gate = await TaskSpending.open({
    dataDir: tasks.dataDir,
    taskId: spec.id,
    ancestors: spec.ancestors,
    onUsage: (totals) => usage.push(totals),
    onRefusal: (refusal) => refusals.push(refusal),
    onWarning: (text) => warnings.push(text),
    ...over,
  });
  return { gate, usage, refusals, warnings };
}

/** Sends requests of `cost` while the gate allows them; how many went. */
function spendUntilRefused(gate: TaskSpending, cost: number, most = 1000): number {
  let sent = 0;
  while (gate.check() === undefined && sent < most) {
    gate.record(request(cost));
    sent++;
  }
  return sent;
}

describe("a task's own cap", () => {
  test("requests go until the cap is reached, then the gate refuses, stops the task once and records the spend", async () => {
    const tasks = await store();
    const spec = await task(tasks, 0.05);
    const { gate, refusals, usage } = await open(tasks, spec);
    let stops = 0;
    gate.arm(() => stops++);
    const sent = spendUntilRefused(gate, 0.012);
    assert.equal(sent, 5, "4 requests leave $0.048, the fifth passes the cap");
    assert.equal(gate.check()?.cap, "task");
    assert.equal(stops, 1);
    assert.equal(refusals.length, 1);
    assert.match(
      refusals[0]?.message ?? "",
      /the task has spent \$0\.0600, its budget of \$0\.0500/,
    );
    await gate.close();
    const record = JSON.parse(
      await readFile(taskLayout(tasks.dataDir, spec.id).spend, "utf8"),
    ) as SpendTotals;
    assert.ok(Math.abs(record.costUSD - 0.06) < 1e-12);
    assert.equal(record.inputTokens, 5000);
    assert.ok(
      Math.abs((usage.at(-1)?.costUSD ?? 0) - 0.06) < 1e-12,
      "the last usage event has it all",
    );
  });

  test("a task run again goes on from what it spent: its cap covers all its attaches", async () => {
    const tasks = await store();
    const spec = await task(tasks, 0.05);
    const first = await open(tasks, spec);
    first.gate.record(request(0.04));
    await first.gate.close();
    const second = await open(tasks, spec);
    assert.equal(second.gate.check(), undefined);
    second.gate.record(request(0.01));
    assert.equal(second.gate.check()?.cap, "task");
    await second.gate.close();
  });

  test("hostile usage from the relay never lowers the task's spend", async () => {
    const tasks = await store();
    const spec = await task(tasks, 1);
    const { gate } = await open(tasks, spec);
    gate.record(request(0.5));
    for (const costUSD of [-10, NaN, -Infinity])
      gate.record({ ...request(0), costUSD, inputTokens: -5 });
    assert.equal(gate.totals.costUSD, 0.5);
    assert.equal(gate.totals.inputTokens, 1000);
    gate.record({ ...request(0), costUSD: Infinity });
    assert.equal(gate.check()?.cap, "task", "an absurd answer exhausts the cap");
    await gate.close();
  });

  test("a flood of requests makes few usage events", async () => {
    const tasks = await store();
    const spec = await task(tasks, undefined);
    const { gate, usage } = await open(tasks, spec);
    const until = Date.now() + 600;
    while (Date.now() < until) {
      gate.record(request(0.001));
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await gate.close();
    // One at the first flush, none within usageEventMs after it, and the last at close.
    assert.ok(SPEND_LIMITS.usageEventMs > 600);
    assert.equal(usage.length, 2, `usage events: ${usage.length}`);
    assert.equal(usage.at(-1)?.costUSD, gate.totals.costUSD);
  });
});

describe("a tree's cap", () => {
  test("two children stop when their sum reaches their parent's cap, though each has room of its own", async () => {
    const tasks = await store();
    const parent = await task(tasks, 0.1);
    const a = await task(tasks, 1, parent.id);
    const b = await task(tasks, 1, parent.id);
    const first = await open(tasks, a);
    const second = await open(tasks, b);
    // The two spend in turns, each seeing the other's record after a refresh.
    for (let round = 0; round < 20; round++) {
      for (const { gate } of [first, second]) {
        if (gate.check() !== undefined) continue;
        gate.record(request(0.02));
        await gate.flushed();
        await new Promise((resolve) => setTimeout(resolve, SPEND_LIMITS.treeReadMs));
      }
    }
    const refusal = first.gate.check() ?? second.gate.check();
    assert.equal(refusal?.cap, "tree");
    assert.equal(refusal.task, parent.id);
    assert.match(refusal.message, new RegExp(`task ${parent.id} and the tasks under it`));
    const sum = first.gate.totals.costUSD + second.gate.totals.costUSD;
    assert.ok(sum >= 0.1 - 1e-9 && sum <= 0.1 + 0.02 + 1e-9, `the sum ${sum}`);
    assert.ok(first.gate.check() !== undefined && second.gate.check() !== undefined);
    await first.gate.close();
    await second.gate.close();
  });

  test("a parent's own cap covers what its children spent", async () => {
    const tasks = await store();
    const parent = await task(tasks, 0.1);
    const child = await task(tasks, undefined, parent.id);
    await writeSpendRecord(
      taskLayout(tasks.dataDir, child.id).spend,
      { ...NO_SPEND, costUSD: 0.09 },
      Date.now(),
    );
    const { gate } = await open(tasks, parent);
    assert.equal(gate.check(), undefined);
    gate.record(request(0.01));
    const refusal = gate.check();
    assert.equal(refusal?.cap, "tree");
    assert.match(refusal.message, /the task and the tasks under it have spent \$0\.1000/);
    await gate.close();
  });

  test("a sibling's record that turns negative, absurd or torn never lowers the tree's spend", async () => {
    const tasks = await store();
    const parent = await task(tasks, 0.1);
    const sibling = await task(tasks, undefined, parent.id);
    const self = await task(tasks, undefined, parent.id);
    const siblingRecord = taskLayout(tasks.dataDir, sibling.id).spend;
    await writeSpendRecord(siblingRecord, { ...NO_SPEND, costUSD: 0.08 }, Date.now());
    const { gate } = await open(tasks, self);
    for (const hostile of [
      JSON.stringify({ version: 1, updatedAt: 0, ...NO_SPEND, costUSD: -5 }),
      JSON.stringify({ version: 1, updatedAt: 0, ...NO_SPEND, costUSD: 1e308 }),
      '{"version":1,"costUSD":0.0',
      JSON.stringify({ version: 1, updatedAt: 0, ...NO_SPEND, costUSD: 0.01 }),
    ]) {
      await writeFile(siblingRecord, hostile);
      await gate.refresh();
      gate.record(request(0));
      assert.equal(gate.check(), undefined);
    }
    gate.record(request(0.02));
    assert.equal(gate.check()?.cap, "tree", "the sibling's $0.08 still counts");
    await gate.close();
  });
});

describe("the daily cap", () => {
  test("the day's spend of every task of the data directory counts, and the gate refuses at the cap", async () => {
    const tasks = await store();
    const other = await task(tasks, undefined);
    const spec = await task(tasks, undefined);
    await appendLedger(tasks.dataDir, { at: Date.now(), task: other.id, ...NO_SPEND, costUSD: 4 });
    const { gate, refusals } = await open(tasks, spec, { dailyCapUSD: 5 });
    assert.equal(gate.check(), undefined);
    gate.record(request(0.6));
    assert.equal(gate.check(), undefined);
    gate.record(request(0.4));
    assert.equal(gate.check()?.cap, "daily");
    assert.match(
      refusals[0]?.message ?? "",
      /spent \$5\.00 today \(UTC\), the daily budget of \$5\.00/,
    );
    await gate.close();
  });

  test("the task's own spend counts as soon as its ledger line is written, before the day is read again", async () => {
    const tasks = await store();
    const other = await task(tasks, undefined);
    const spec = await task(tasks, undefined);
    const at = Date.now();
    await appendLedger(tasks.dataDir, { at, task: other.id, ...NO_SPEND, costUSD: 1 });
    // An earlier attach of the same task spent 2 today.
    await appendLedger(tasks.dataDir, { at, task: spec.id, ...NO_SPEND, costUSD: 2 });
    const { gate } = await open(tasks, spec, { dailyCapUSD: 5 });
    let sent = 0;
    while (gate.check() === undefined && sent < 100) {
      gate.record(request(0.5));
      sent++;
      // Each line is in the ledger before the next request, as a slow agent's would be; the
      // gate's own read of the day (every quarter second) has not come round yet.
      await gate.flushed();
    }
    assert.equal(sent, 4, "1 + 2 + 4 x 0.5 reaches the cap of 5");
    await gate.close();
  });

  test("a daily cap of 0 is no cap", async () => {
    const tasks = await store();
    const spec = await task(tasks, undefined);
    const { gate } = await open(tasks, spec, { dailyCapUSD: 0 });
    gate.record(request(100));
    assert.equal(gate.check(), undefined);
    await gate.close();
  });
});
