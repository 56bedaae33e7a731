// The dashboard: how long from an event written to the store to its line in a real browser's
// page (chromium through playwright-core; the page stamps each line as it is added), p50 and
// p99 over many events; against the same event read by the CLI's own watch (`tasks.watch` in
// this process), the baseline. Then the server's memory with 10,000 tasks in the store, after
// the list has been served and feeds are open.
// Run: npm run build && node --import tsx bench/webLatency.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { Tasks } from "../src/store/index.js";
import { readOrMakeToken, readPageFiles, startWebServer } from "../src/web/index.js";
import { populate, quick } from "./support/storeSetup.js";

/** The bench makes no task that runs: a rerun asked of its server is refused. */
const refuseRuns = (): Promise<void> => Promise.reject(new Error("the bench runs no task"));

const EVENTS = quick ? 50 : 300;
const TASKS = quick ? 2_000 : 10_000;

/**
 * Run in the page (as text: this file has no DOM types): stamps each line "bench N" with the
 * time it was added to the page, in window.seen.
 */
const STAMP_LINES = `
  window.seen = {};
  new MutationObserver((records) => {
    const now = performance.timeOrigin + performance.now();
    for (const record of records) {
      for (const node of record.addedNodes) {
        const match = /bench (\\d+)/.exec(node.textContent ?? "");
        if (match && window.seen[match[1]] === undefined) window.seen[match[1]] = now;
      }
    }
  }).observe(document.body, { childList: true, subtree: true });
`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? NaN;
}

const root = await mkdtemp(join(tmpdir(), "warden-bench-web-"));
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
  ],
});
try {
  const tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
  const token = await readOrMakeToken(tasks.dataDir);
  const server = await startWebServer({
    tasks,
    host: "127.0.0.1",
    port: 0,
    token,
    page: await readPageFiles(),
    runInBackground: refuseRuns,
  });
  const { id } = await tasks.create({ prompt: "latency" });
  const run = await tasks.attach(id);
  const page = await browser.newPage();
  await page.goto(`${server.url}#/task/${id}`);
  await page.locator("details summary").first().waitFor();
  // The page's clock and this process's are the same wall clock; each line gets its time.
  await page.evaluate(STAMP_LINES);
  const watcher = tasks.watch(id, { since: 1 });
  const written: number[] = [];
  const watched: number[] = [];
  for (let i = 0; i < EVENTS; i++) {
    written.push(performance.timeOrigin + performance.now());
    run.appendEvent("note", { text: `bench ${i}` });
    for (;;) {
      const next = await watcher.next();
      if (next.done === true) break;
      if ((next.value as { text?: string }).text === `bench ${i}`) break;
    }
    watched.push(performance.timeOrigin + performance.now() - (written[i] ?? 0));
    // Events a few milliseconds apart, as an agent's come, not one burst.
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  await page.locator("summary", { hasText: new RegExp(`note: bench ${EVENTS - 1}$`) }).waitFor();
  const seen = await page.evaluate<Record<string, number>>("window.seen");
  const shown = written.map((at, i) => (seen[String(i)] ?? NaN) - at);
  const w50 = percentile(watched, 50);
  console.log(`an event written to the store, to its line in the page (${EVENTS} events):`);
  const row = (name: string, values: number[]): void => {
    const p50 = percentile(values, 50);
    console.log(
      `  ${name.padEnd(44)} p50 ${p50.toFixed(1).padStart(6)} ms  p99 ${percentile(values, 99).toFixed(1).padStart(6)} ms  ratio ${(p50 / w50).toFixed(2)}x`,
    );
  };
  row("the store's own watch, in process (baseline)", watched);
  row("the dashboard page in chromium", shown);
  await run.finish({ state: "succeeded" });
  await page.close();
  await server.close();

  // Memory: a store of many tasks, the list served a few times, and feeds open.
  const big = join(root, "big");
  const bigTasks = await Tasks.open({ dataDir: big, env: {} });
  populate(big, TASKS, ["finished", "finished", "finished", "created"]);
  const bigServer = await startWebServer({
    tasks: bigTasks,
    host: "127.0.0.1",
    port: 0,
    token,
    page: await readPageFiles(),
    runInBackground: refuseRuns,
  });
  const before = process.memoryUsage().rss;
  const headers = { authorization: `Bearer ${token}` };
  // A server's first list reads every task's files (the baseline, each on a fresh server); a
  // refetch, as the page makes on every change, reads only the unfinished ones, the server
  // keeping the finished rows. One list first warms both paths.
  const listOnce = async (url: string): Promise<number> => {
    const started = performance.now();
    const answer = await fetch(`${url.replace(/\/\?token=.*$/, "")}/api/tasks`, { headers });
    await answer.json();
    return performance.now() - started;
  };
  await listOnce(bigServer.url);
  const firstTimes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const fresh = await startWebServer({
      tasks: bigTasks,
      host: "127.0.0.1",
      port: 0,
      token,
      page: await readPageFiles(),
      runInBackground: refuseRuns,
    });
    firstTimes.push(await listOnce(fresh.url));
    await fresh.close();
  }
  const listTimes: number[] = [];
  for (let i = 0; i < 5; i++) listTimes.push(await listOnce(bigServer.url));
  const pages = await Promise.all(
    [1, 2, 3].map(async () => {
      const p = await browser.newPage();
      await p.goto(bigServer.url);
      await p.waitForSelector("tr.row");
      return p;
    }),
  );
  const after = process.memoryUsage().rss;
  console.log(
    `the server with ${TASKS} tasks (a quarter unfinished): a fresh server's first list in ${percentile(firstTimes, 50).toFixed(0)} ms (baseline), ` +
      `a refetch in ${percentile(listTimes, 50).toFixed(0)} ms (medians of 5, ratio ${(percentile(listTimes, 50) / percentile(firstTimes, 50)).toFixed(2)}x); ` +
      `this process's RSS ${(after / 2 ** 20).toFixed(0)} MiB (${((after - before) / 2 ** 20).toFixed(0)} MiB more after the lists and 3 open pages)`,
  );
  for (const p of pages) await p.close();
  await bigServer.close();
} finally {
  await browser.close();
  await rm(root, { recursive: true, force: true });
}
