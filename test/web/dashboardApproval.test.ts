// An approval answered from the dashboard reaches the agent: the real Claude Code CLI in the
// sandbox, run with `--approve prompt` against the scripted Messages API, asks about a Bash
// call; the task's page in chromium shows the call in full, and "allow" or "deny" there goes
// through the store to the agent, on a desktop screen and on a phone's.
import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { Tasks } from "../../src/store/index.js";
import {
  readOrMakeToken,
  readPageFiles,
  startWebServer,
  type RunningWebServer,
} from "../../src/web/index.js";
import { refuseBackgroundRuns } from "./refuseBackgroundRuns.js";
import { claudeSuite, NO_CLAUDE_SYSTEM, runClaude, warden } from "../e2e/claudeTasks.js";
import { idOf } from "../e2e/fixtures.js";
import type { ScriptedAnthropic } from "../support/scriptedAnthropic.js";
import { launchChromium, NO_BROWSER, PHONE_VIEWPORT, SHOTS } from "./browserKit.js";

const COMMAND = "echo yes > approved.txt";

describe("an approval answered on the dashboard", { skip: NO_CLAUDE_SYSTEM ?? NO_BROWSER }, () => {
  const suite = claudeSuite();
  let server: RunningWebServer;
  let browser: Browser;

  before(async () => {
    const tasks = await Tasks.open({ dataDir: suite.ws.dataDir, env: {} });
    server = await startWebServer({
      tasks,
      host: "127.0.0.1",
      port: 0,
      token: await readOrMakeToken(tasks.dataDir),
      page: await readPageFiles(),
      runInBackground: refuseBackgroundRuns,
    });
    browser = await launchChromium();
    await mkdir(SHOTS, { recursive: true });
  });
  after(async () => {
    await browser.close();
    await server.close();
  });

  /** A detached task whose agent asks to run COMMAND, and its page open on `viewport`. */
  async function asking(
    viewport: { width: number; height: number },
    reply: string,
  ): Promise<{ api: ScriptedAnthropic; id: string; page: Page }> {
    const api = await suite.scripted([
      { kind: "tool_use", name: "Bash", input: { command: COMMAND } },
      { kind: "text", text: reply },
    ]);
    const run = await runClaude(suite.ws, api, "write approved.txt", [
      "--approve",
      "prompt",
      "--detach",
    ]);
    assert.equal(run.code, 0, run.stderr);
    const id = idOf(run);
    const page = await browser.newPage({ viewport });
    await page.goto(`${server.url}#/task/${id}`);
    await page.locator(".approval").waitFor({ timeout: 90_000 });
    return { api, id, page };
  }

  /** The task's end as `warden wait --json` reports it, and its one approval request. */
  async function ending(
    api: ScriptedAnthropic,
    id: string,
  ): Promise<{ ended: Record<string, unknown>; request: Record<string, unknown> }> {
    const wait = await warden(suite.ws, api, ["wait", id, "--timeout", "90s", "--json"]);
    assert.equal(wait.code, 0, wait.stderr);
    const list = await warden(suite.ws, api, ["approvals", id, "--json"]);
    const [request] = JSON.parse(list.stdout) as Record<string, unknown>[];
    return { ended: JSON.parse(wait.stdout) as Record<string, unknown>, request: request ?? {} };
  }

  test("allow on the page reaches the agent: it runs the call and the task brings back its change", async () => {
    const { api, id, page } = await asking({ width: 1200, height: 800 }, "Done.");
    const shown = await page.locator(".approval").innerText();
    assert.match(shown, /Bash/);
    assert.ok(shown.includes(COMMAND), `the whole call is shown: ${shown}`);
    assert.equal(api.turns().length, 1, "the model waits for the answer");
    await page.locator(".approval").getByRole("button", { name: "allow" }).click();
    const { ended, request } = await ending(api, id);
    assert.equal(request.decision, "allow");
    assert.equal(request.answeredBy, "person");
    assert.equal(ended.changes, true, "the allowed call wrote approved.txt");
    await page.locator(".approval").waitFor({ state: "detached", timeout: 10_000 });
    // The real agent's stream, as the page tells it: the call, its result, and the last words.
    const transcript = page.getByLabel("transcript");
    await transcript.locator(".tool", { hasText: "Bash" }).waitFor({ timeout: 10_000 });
    assert.match(await transcript.locator(".tool").first().innerText(), /echo yes > approved\.txt/);
    assert.match(
      (await transcript.locator(".tool .tool-result").first().textContent()) ?? "",
      /^ok/,
    );
    await transcript.getByText("Done.", { exact: true }).waitFor({ timeout: 10_000 });
    await page.locator(".commits li").waitFor({ timeout: 10_000 });
    await page.close();
  });

  test("deny on the page reaches the agent: the call does not run and nothing comes back", async () => {
    const { api, id, page } = await asking({ width: 1200, height: 800 }, "I will not.");
    await page.locator(".approval").getByRole("button", { name: "deny" }).click();
    const { ended, request } = await ending(api, id);
    assert.equal(request.decision, "deny");
    assert.equal(request.answeredBy, "person");
    assert.equal(ended.changes, false, "the denied call wrote nothing");
    assert.match(JSON.stringify(api.turns()[1]?.body), /denied by a person/);
    await page.close();
  });

  test("on a phone's screen the call is readable and allow fits without scrolling sideways", async () => {
    const { api, id, page } = await asking(PHONE_VIEWPORT, "Done.");
    const approval = page.locator(".approval");
    // The page draws the task's view again on each approval event, and an event that arrives
    // while the scroll acts replaces the element under it: the scroll is asked again then.
    for (let tries = 1; ; tries++) {
      try {
        await approval.scrollIntoViewIfNeeded();
        break;
      } catch (error) {
        if (tries >= 3 || !/not attached to the DOM/.test(String(error))) throw error;
      }
    }
    const allow = approval.getByRole("button", { name: "allow" });
    const box = await allow.boundingBox();
    assert.ok(box !== null && box.x + box.width <= PHONE_VIEWPORT.width, "allow is on screen");
    const wide = await page.evaluate<number>("document.documentElement.scrollWidth");
    assert.ok(wide <= PHONE_VIEWPORT.width, `the page is ${wide} px wide on a 390 px screen`);
    await page.screenshot({ path: join(SHOTS, "dashboard-approval-phone.png") });
    await allow.click();
    const { ended, request } = await ending(api, id);
    assert.equal(request.decision, "allow");
    assert.equal(ended.changes, true);
    await page.close();
  });
});
