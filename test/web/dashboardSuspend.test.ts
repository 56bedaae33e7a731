// Suspending and resuming a task from the dashboard, in a real browser (Debian's chromium driven
// by playwright-core) against the real server and a real run in the sandbox: the task's page
// offers suspend while it runs and resume while it is suspended, each going through the same
// store operation as the CLI, and the list can be filtered to suspended tasks.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { createTask, executeTask, taskLayout, type ExecuteOutcome } from "../../src/host/index.js";
import {
  readOrMakeToken,
  readPageFiles,
  startWebServer,
  type RunningWebServer,
} from "../../src/web/index.js";
import { AWAIT_RELEASE } from "../e2e/fixtures.js";
import { hostFixture, NO_SANDBOX, type HostFixture } from "../host/fixtures.js";
import { TEST_LIMITS } from "../support/testBounds.js";
import { launchChromium, NO_BROWSER, SHOTS, waitUntil } from "./browserKit.js";

describe("suspend and resume from the dashboard", { skip: NO_BROWSER || NO_SANDBOX }, () => {
  let fx: HostFixture;
  let server: RunningWebServer;
  let browser: Browser;
  let page: Page;
  /** The runs the page asked for in the background, so the test can wait for them. */
  const background: Promise<ExecuteOutcome>[] = [];

  before(async () => {
    fx = await hostFixture();
    server = await startWebServer({
      tasks: fx.tasks,
      host: "127.0.0.1",
      port: 0,
      token: await readOrMakeToken(fx.tasks.dataDir),
      page: await readPageFiles(),
      runInBackground: (id) => {
        background.push(executeTask(fx.tasks, id, { env: {} }));
        return Promise.resolve();
      },
    });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    await mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await Promise.allSettled(background);
    await browser.close();
    await server.close();
    await fx.cleanup();
  });

  test("suspend on a running task's page leaves it suspended, shown so; resume runs it on to its end", async () => {
    const { summary } = await createTask(fx.tasks, {
      repo: fx.repo,
      prompt: "wait for release\n",
      agent: "command",
      command: ["sh", "-c", AWAIT_RELEASE],
      limits: TEST_LIMITS,
    });
    const id = summary.id;
    const workspace = taskLayout(fx.tasks.dataDir, id).workspace;
    const first = executeTask(fx.tasks, id, { env: {} });
    await waitUntil(() => Promise.resolve(existsSync(join(workspace, "started"))), 60_000);

    await page.goto(`${server.url}#/task/${id}`);
    const suspend = page.getByRole("button", { name: "suspend" });
    const resume = page.getByRole("button", { name: "resume" });
    await suspend.waitFor({ timeout: 10_000 });
    assert.equal(await resume.isVisible(), false, "no resume while it runs");
    await suspend.click();
    const outcome = await first;
    assert.equal(outcome.kind, "suspended", "the executor suspended the task");
    assert.equal((await fx.tasks.get(id)).state, "suspended");
    await page.locator("dd", { hasText: /^suspended$/ }).waitFor({ timeout: 10_000 });
    await page.locator("dd", { hasText: /^on request since .*; resume runs it on$/ }).waitFor();
    await resume.waitFor({ timeout: 5_000 });
    assert.equal(await suspend.isVisible(), false, "no suspend while it is suspended");
    await page.screenshot({ path: join(SHOTS, "dashboard-suspended.png") });

    await page.goto(`${server.url}#/`);
    await page.getByLabel("state").selectOption("suspended");
    await page.locator(`tr[data-id="${id}"]`).waitFor({ timeout: 5_000 });
    assert.equal(await page.locator("tbody tr").count(), 1, "only the suspended task is listed");

    await page.goto(`${server.url}#/task/${id}`);
    await resume.click();
    await page.locator("dd", { hasText: /^running$/ }).waitFor({ timeout: 30_000 });
    await waitUntil(() => Promise.resolve(existsSync(join(workspace, "started"))), 60_000);
    await writeFile(join(workspace, "release"), "");
    await page.locator("dd", { hasText: /^succeeded$/ }).waitFor({ timeout: 60_000 });
    assert.equal((await fx.tasks.get(id)).state, "succeeded");
    const events = [];
    for await (const event of fx.tasks.watch(id, { follow: false })) events.push(event);
    assert.ok(events.some((e) => e.type === "attached" && e.resumed === "request"));
  });

  test("a task suspended at a usage limit shows in the list and on its page when it resumes by itself", async () => {
    const task = await fx.tasks.create({ prompt: "limited" });
    const attachment = await fx.tasks.attach(task.id);
    const resumeAt = Date.now() + 3_600_000;
    await attachment.suspend({ reason: "usage_limit", resumeAt, detail: "resets" });
    const until = await page.evaluate((at) => new Date(at).toLocaleTimeString(), resumeAt);
    await page.goto(`${server.url}#/`);
    await page.getByLabel("state").selectOption("suspended");
    const row = page.locator(`tr[data-id="${task.id}"]`);
    await row.waitFor({ timeout: 5_000 });
    assert.equal(await row.locator("td").nth(1).innerText(), `suspended (until ${until})`);
    await page.goto(`${server.url}#/task/${task.id}`);
    await page
      .locator("dd", { hasText: `the model API's usage limit since` })
      .filter({ hasText: `resumes by itself at ${until}` })
      .waitFor({ timeout: 5_000 });
    await page.getByRole("button", { name: "resume" }).waitFor();
  });
});
