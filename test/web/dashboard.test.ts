// The dashboard in a real browser: Debian's chromium driven by playwright-core, against the
// real server and the built page. It shows tasks as they are made, a task's events and its
// conversation as they are written, its messages with their replies pending, its cost over
// time and its changes; it takes messages, cancels and reruns through the store; and it shows
// hostile text (a title, a transcript, a file name, a commit message) as text.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { createTask, executeTask } from "../../src/host/index.js";
import type { TaskSummary } from "../../src/store/index.js";
import {
  readOrMakeToken,
  readPageFiles,
  startWebServer,
  type RunningWebServer,
} from "../../src/web/index.js";
import { hostFixture, NO_SANDBOX, type HostFixture } from "../host/fixtures.js";
import { TEST_LIMITS } from "../support/testBounds.js";
import { launchChromium, NO_BROWSER, SHOTS, waitUntil } from "./browserKit.js";

const HOSTILE = '<img src=x onerror="alert(1)"><script>alert(2)</script>';
/** Marks that must never reach the page: bidi overrides and isolates, and a terminal escape. */
const CONTROLS = ["\u202e", "\u2066", "\u001b"];
/** A file name cannot hold a slash, so the hostile one has no closing tag. */
const HOSTILE_NAME = "<img src=x onerror=alert(3)>";

describe("the dashboard in a browser", { skip: NO_BROWSER || NO_SANDBOX }, () => {
  let fx: HostFixture;
  let server: RunningWebServer;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  /** The background runs the page asked for, so the tests can wait for them. */
  const background: Promise<unknown>[] = [];
  /** A finished task whose agent made a file and a commit with hostile names. */
  let hostileTask: TaskSummary;

  before(async () => {
    fx = await hostFixture();
    const token = await readOrMakeToken(fx.tasks.dataDir);
    server = await startWebServer({
      tasks: fx.tasks,
      host: "127.0.0.1",
      port: 0,
      token,
      page: await readPageFiles(),
      runInBackground: (id) => {
        background.push(executeTask(fx.tasks, id, { env: {} }));
        return Promise.resolve();
      },
    });
    const script =
      `printf 'const shown = "%s"; // a comment\\n' '${HOSTILE}' > "$(printf '${HOSTILE_NAME}\\342\\200\\256.ts')" && ` +
      `git add -A && git commit -qm "$(printf '${HOSTILE} \\342\\200\\256\\033[31mred')"`;
    ({ summary: hostileTask } = await createTask(fx.tasks, {
      repo: fx.repo,
      prompt: "make a hostile commit\n",
      agent: "command",
      command: ["sh", "-c", script],
      limits: TEST_LIMITS,
    }));
    const outcome = await executeTask(fx.tasks, hostileTask.id, { env: {} });
    assert.equal(outcome.kind === "finished" && outcome.terminal.state, "succeeded");
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    page.on("dialog", (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await Promise.allSettled(background);
    await browser.close();
    await server.close();
    await fx.cleanup();
  });

  /** The page's whole text, checked to hold none of the controls a sandbox may send. */
  async function shownText(): Promise<string> {
    const shown = await page.locator("body").innerText();
    for (const control of CONTROLS) {
      assert.ok(!shown.includes(control), `no ${JSON.stringify(control)} reaches the page`);
    }
    return shown;
  }

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
    const { id } = await fx.tasks.create({ prompt: "appears live" });
    await page.waitForSelector(`tr[data-id="${id}"]`, { timeout: 5_000 });
    assert.ok(Date.now() - started < 1_000 + 500, "within a second, with room for the browser");
    await page.screenshot({ path: join(SHOTS, "dashboard-list.png") });
  });

  test("a task's page streams its events and conversation, shows its cost over time and a message's pending reply", async () => {
    const { id } = await fx.tasks.create({ prompt: "a task to steer" });
    const run = await fx.tasks.attach(id);
    run.appendEvent("note", { text: "first step" });
    await page.goto(`${server.url}#/task/${id}`);
    await page.getByText("note: first step").waitFor();
    run.appendEvent("agent", {
      kind: "assistant_text",
      text: "I will read the tests first.",
      cut: false,
    });
    run.appendEvent("agent", { kind: "tool_use", id: "t1", name: "Bash", summary: "npm test" });
    run.appendEvent("usage", { inputTokens: 1200, outputTokens: 300, costUSD: 0.0123 });
    const transcript = page.getByLabel("transcript");
    await transcript.getByText("I will read the tests first.").waitFor({ timeout: 2_000 });
    await transcript.getByText("Bash: npm test").waitFor();
    assert.equal(await transcript.locator(".tool-result").textContent(), "running");
    run.appendEvent("agent", { kind: "tool_result", id: "t1", ok: false, summary: "2 failing" });
    await transcript.getByText("error: 2 failing").waitFor({ state: "attached", timeout: 2_000 });
    run.appendEvent("usage", { inputTokens: 4000, outputTokens: 900, costUSD: 0.0456 });
    await page.getByRole("img", { name: /cost over time, \$0\.0456/ }).waitFor({ timeout: 2_000 });
    assert.match(
      await page.locator(".cost-chart p").innerText(),
      /\$0\.0456 after \d+s, 2 measures/,
    );

    await page.getByLabel("message", { exact: true }).fill("also update the changelog");
    await page.getByRole("button", { name: "send" }).click();
    const messages = page.getByLabel("messages");
    await messages.getByText("waiting for the agent to take it…").waitFor({ timeout: 2_000 });
    assert.deepEqual(
      (await fx.tasks.messages(id)).map((m) => m.body),
      ["also update the changelog"],
    );
    // The executor's side of `send --await`, as its channel server plays it: it takes the
    // message and says so, then delivers the reply and says so.
    const taken = await run.takeMessages();
    assert.equal(taken.length, 1);
    run.appendEvent("message_taken", { n: 1 });
    await messages
      .getByText("the agent has it; waiting for its reply…")
      .waitFor({ timeout: 2_000 });
    await run.deliver(1, "changelog updated");
    run.appendEvent("message_delivered", { n: 1 });
    await messages.getByText("changelog updated").waitFor({ timeout: 2_000 });
    await page.screenshot({ path: join(SHOTS, "dashboard-task.png"), fullPage: true });

    await page.getByRole("button", { name: "cancel task" }).click();
    await waitUntil(async () => (await fx.tasks.get(id)).cancelRequested);
    await run.finish({ state: "cancelled" });
  });

  test("a finished task's changes show its commits and its diff coloured, and run again makes a new task that runs", async () => {
    await page.goto(`${server.url}#/task/${hostileTask.id}`);
    const changes = page.locator(".diff");
    await changes.waitFor({ timeout: 5_000 });
    assert.ok((await page.locator(".diff .add").count()) > 0, "added lines are marked");
    assert.ok((await page.locator(".diff .tok-string").count()) > 0, "strings are coloured");
    assert.ok((await page.locator(".diff .tok-comment").count()) > 0, "comments are coloured");
    assert.equal(await page.locator(".commits li").count(), 1);
    await page
      .locator("section", { hasText: "changes" })
      .last()
      .screenshot({
        path: join(SHOTS, "dashboard-changes.png"),
      });

    await page.getByRole("button", { name: "run again" }).click();
    await page.waitForURL((url) => !url.hash.endsWith(hostileTask.id), { timeout: 5_000 });
    const rerun = /#\/task\/([0-9a-z]+)$/.exec(page.url())?.[1] ?? "";
    assert.notEqual(rerun, "");
    const made = await fx.tasks.get(rerun);
    assert.equal(
      made.spec.base,
      (await fx.tasks.get(hostileTask.id)).spec.base,
      "the new task starts where the old one did",
    );
    await page.locator("dd", { hasText: /^succeeded$/ }).waitFor({ timeout: 30_000 });
    assert.equal((await fx.tasks.get(rerun)).state, "succeeded");
  });

  test("script tags, bidi controls and escapes from a task are shown as text: nothing runs, nothing reorders", async () => {
    const { id } = await fx.tasks.create({ prompt: `${HOSTILE}\u202e title` });
    const run = await fx.tasks.attach(id);
    run.appendEvent("note", { text: `${HOSTILE} \u202e\u2066 \u001b[31mred\u001b[0m` });
    run.appendEvent("agent", { kind: "assistant_text", text: `${HOSTILE}\u202e said`, cut: false });
    run.appendEvent("agent", {
      kind: "tool_use",
      id: "x",
      name: HOSTILE,
      summary: "\u001b]0;title\u0007",
    });
    await page.goto(`${server.url}#/task/${id}`);
    await page.getByLabel("transcript").getByText("said", { exact: false }).waitFor();
    const shown = await shownText();
    assert.match(shown, /<script>alert\(2\)<\/script>/, "the markup is shown as its text");
    await run.finish({ state: "succeeded" });

    await page.goto(`${server.url}#/task/${hostileTask.id}`);
    await page
      .locator(".commits li")
      .waitFor({ timeout: 15_000 })
      .catch(async (error: unknown) => {
        const shown = await page.locator("main").innerText();
        assert.fail(`the commits never showed (${String(error)}); the page said:\n${shown}`);
      });
    const withChanges = await shownText();
    assert.match(
      await page.locator(".commits li").innerText(),
      /<img src=x onerror="alert\(1\)"><script>alert\(2\)<\/script>/,
      "the commit's subject is shown as text",
    );
    assert.ok(withChanges.includes(`b/${HOSTILE_NAME}`), "the file's name is shown as text");
    await page.goto(server.url);
    await page.waitForSelector(`tr[data-id="${id}"]`);
    await shownText();
    assert.equal(await page.locator("main img, main script").count(), 0, "no element was made");
    assert.deepEqual(dialogs, [], "no script ran");
  });
});
