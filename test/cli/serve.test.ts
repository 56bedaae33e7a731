// `warden serve` as a person runs it: it prints the address with the token once, serves the
// built page there and refuses it without the token, stops on SIGTERM, and will not listen
// where other machines can reach it unless told to.
import assert from "node:assert/strict";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import { describeCli } from "../support/cliSuite.js";
import { runCli, startCli } from "../e2e/fixtures.js";

describeCli("warden serve", (ws) => {
  test("it prints the address with the token, serves the page there, and ends on SIGTERM", async () => {
    const child = startCli(ws.dataDir, ["serve", "--listen", "127.0.0.1:0"]);
    let out = "";
    child.stdout?.setEncoding("utf8");
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on("data", (chunk: string) => {
        out += chunk;
        const match = /open (http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]+)/.exec(out);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.once("exit", () => {
        reject(new Error(`serve ended first: ${out}`));
      });
    });
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<script type="module" src="\/app.js">/);
    const script = await fetch(url.replace(/\/\?token=(.*)$/, "/app.js"), {
      headers: { authorization: `Bearer ${url.split("token=")[1] ?? ""}` },
    });
    assert.equal(script.status, 200);
    const refused = await fetch(url.replace(/\?token=.*$/, ""));
    assert.equal(refused.status, 401);
    child.kill("SIGTERM");
    const [code] = (await once(child, "exit")) as [number | null];
    assert.equal(code, 0);
  });

  test("--notify runs the command for a task that ends while it serves", async () => {
    const told = join(ws.root, "told.jsonl");
    const child = startCli(ws.dataDir, [
      "serve",
      "--listen",
      "127.0.0.1:0",
      "--json",
      "--notify",
      `cat >> '${told}'`,
    ]);
    let out = "";
    child.stdout?.setEncoding("utf8");
    await new Promise<void>((resolve, reject) => {
      child.stdout?.on("data", (chunk: string) => {
        out += chunk;
        if (out.includes("\n")) resolve();
      });
      child.once("exit", () => {
        reject(new Error(`serve ended first: ${out}`));
      });
    });
    assert.match(out, /^\{"url":"http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    const tasks = await Tasks.open({ dataDir: ws.dataDir, env: {} });
    const { id } = await tasks.create({ prompt: "tell me when it ends" });
    await (await tasks.attach(id)).finish({ state: "succeeded" });
    const deadline = Date.now() + 10_000;
    let text = "";
    while (!text.includes(id) && Date.now() < deadline) {
      text = await readFile(told, "utf8").catch(() => "");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const told1 = JSON.parse(text.trim()) as { event: string; task: { id: string } };
    assert.deepEqual([told1.event, told1.task.id], ["succeeded", id]);
    child.kill("SIGTERM");
    await once(child, "exit");
  });

  test("a --webhook that is not an http(s) URL is a usage error", async () => {
    const run = await runCli(ws.dataDir, [
      "serve",
      "--listen",
      "127.0.0.1:0",
      "--webhook",
      "file:///etc/passwd",
    ]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /not an http\(s\) URL/);
  });

  test("an address other machines can reach is refused without --public", async () => {
    const run = await runCli(ws.dataDir, ["serve", "--listen", "0.0.0.0:0"]);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /reachable from other machines/);
    assert.match(run.stderr, /--public/);
  });
});
