// The dashboard in a real browser: Debian's chromium driven by playwright-core, against the
// real server and the built page. It shows tasks as they are made, a task's events as they are
// written, takes messages and cancels through the store, and shows hostile text as text.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { Tasks } from "../../src/store/index.js";
import {
  readOrMakeToken,
  readPageFiles,
  startWebServer,
  type RunningWebServer,
} from "../../src/web/index.js";
import { skipWhen } from "../support/skipWhen.js";

const CHROMIUM = "/usr/bin/chromium";
const NO_BROWSER = skipWhen(
  existsSync(CHROMIUM) ? false : "chromium is not installed: apt-get install chromium",
);

/** Where screenshots go: WARDEN_SCREENSHOTS when set (docs/ takes them from there), else tmp. */
const SHOTS = process.env.WARDEN_SCREENSHOTS ?? join(tmpdir(), "warden-dashboard-shots");

/** Resolves once `check` holds; fails after five seconds. */
async function waitUntil(check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("the page never got there");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("the dashboard in a browser", { skip: NO_BROWSER }, () => {
  let root: string;
  let tasks: Tasks;
  let server: RunningWebServer;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "warden-dashboard-"));
    tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
    const token = await readOrMakeToken(tasks.dataDir);
    server = await startWebServer({
      tasks,
      host: "127.0.0.1",
      port: 0,
      token,
      page: await readPageFiles(),
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--no-first-run",
      ],
    });
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser.close();
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  test("without the token the page is refused; with it the list loads and the address drops it", async () => {
    const refused = await page.goto(server.url.replace(/\?token=.*$/, ""));
    assert.equal(refused?.status(), 401);
    const loaded = await page.goto(server.url);
    assert.equal(loaded?.status(), 200);
    await page.waitForSelector("table");
    assert.doesNotMatch(page.url(), /token=/);
  });

  test("a task made while the page is open appears in the list within a second", async () => {
    await page.goto(server.url);
    await page.waitForSelector("table");
    const started = Date.now();
    const { id } = await tasks.create({ prompt: "appears live" });
    await page.waitForSelector(`tr[data-id="${id}"]`, { timeout: 5_000 });
    assert.ok(Date.now() - started < 1_000 + 500, "within a second, with room for the browser");
    await page.screenshot({ path: join(SHOTS, "dashboard-list.png") });
  });

  test("a task's page streams its events, sends a message and cancels through the store", async () => {
    const { id } = await tasks.create({ prompt: "a task to steer" });
    const run = await tasks.attach(id);
    run.appendEvent("note", { text: "first step" });
    await page.goto(`${server.url}#/task/${id}`);
    await page.getByText("note: first step").waitFor();
    run.appendEvent("note", { text: "second step" });
    await page.getByText("note: second step").waitFor({ timeout: 2_000 });

    await page.getByLabel("message").fill("also update the changelog");
    await page.getByRole("button", { name: "send" }).click();
    await waitUntil(async () => (await page.getByLabel("message").inputValue()) === "");
    const inbox = await tasks.messages(id);
    assert.deepEqual(
      inbox.map((m) => m.body),
      ["also update the changelog"],
    );
    await page.screenshot({ path: join(SHOTS, "dashboard-task.png"), fullPage: true });

    await page.getByRole("button", { name: "cancel task" }).click();
    await waitUntil(async () => (await tasks.get(id)).cancelRequested);
    assert.equal((await tasks.get(id)).cancelRequested, true);
    await run.finish({ state: "cancelled" });
  });

  test("script tags, bidi controls and escapes from a task are shown as text: nothing runs, nothing reorders", async () => {
    const hostile = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
    const { id } = await tasks.create({ prompt: `${hostile}\u202e title` });
    const run = await tasks.attach(id);
    run.appendEvent("note", { text: `${hostile} \u202e\u2066 \u001b[31mred\u001b[0m` });
    await page.goto(`${server.url}#/task/${id}`);
    await page.getByText("note:", { exact: false }).first().waitFor();
    const shown = await page.locator("body").innerText();
    assert.match(shown, /<script>alert\(2\)<\/script>/, "the markup is shown as its text");
    for (const control of ["\u202e", "\u2066", "\u001b"]) {
      assert.ok(!shown.includes(control), "no bidi control or escape reaches the page");
    }
    assert.equal(await page.locator("main img, main script").count(), 0, "no element was made");
    assert.deepEqual(dialogs, [], "no script ran");
    await run.finish({ state: "succeeded" });
  });
});
