// `warden serve` over real HTTP on loopback: the token and host checks, the security headers,
// the list and a task's events pushed live from the store's files, and the changes a person
// makes going through the store's own operations.
import assert from "node:assert/strict";
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { Tasks } from "../../src/store/index.js";
import {
  parseListen,
  readOrMakeToken,
  rotateToken,
  startWebServer,
  TOKEN_FILE,
  type RunningWebServer,
} from "../../src/web/index.js";
import { refuseBackgroundRuns } from "./refuseBackgroundRuns.js";

const PAGE = {
  html: Buffer.from("<!doctype html><title>warden</title>"),
  js: Buffer.from("export {};"),
  css: Buffer.from("body{}"),
};

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function call(
  server: RunningWebServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        method,
        path,
        headers: { host: `127.0.0.1:${server.port}`, ...headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          });
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Reads a server-sent event stream until `until` says enough, or the time runs out. */
function readEvents(
  server: RunningWebServer,
  path: string,
  token: string,
  until: (events: { event: string; data: unknown }[]) => boolean,
  timeoutMs = 10_000,
): Promise<{ event: string; data: unknown }[]> {
  return new Promise((resolve, reject) => {
    const events: { event: string; data: unknown }[] = [];
    const req = request(
      {
        host: "127.0.0.1",
        port: server.port,
        path,
        headers: { host: `127.0.0.1:${server.port}`, authorization: `Bearer ${token}` },
      },
      (res) => {
        let pending = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          pending += chunk;
          let end: number;
          while ((end = pending.indexOf("\n\n")) >= 0) {
            const block = pending.slice(0, end);
            pending = pending.slice(end + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (event !== undefined && data !== undefined) {
              events.push({ event, data: JSON.parse(data) as unknown });
            }
          }
          if (until(events)) {
            clearTimeout(timer);
            req.destroy();
            resolve(events);
          }
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`the stream said only ${JSON.stringify(events)}`));
    }, timeoutMs);
    req.on("error", (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}

describe("the dashboard's server", () => {
  let root: string;
  let tasks: Tasks;
  let token: string;
  let server: RunningWebServer;
  const bearer = (): Record<string, string> => ({ authorization: `Bearer ${token}` });

  before(async () => {
    root = await mkdtemp(join(tmpdir(), "warden-web-"));
    tasks = await Tasks.open({ dataDir: join(root, "data"), env: {} });
    token = await readOrMakeToken(tasks.dataDir);
    server = await startWebServer({
      tasks,
      host: "127.0.0.1",
      port: 0,
      token,
      page: PAGE,
      runInBackground: refuseBackgroundRuns,
    });
  });
  after(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  test("the page loads with the token in its address and sets the cookie; without it, 401", async () => {
    const without = await call(server, "GET", "/");
    assert.equal(without.status, 401);
    assert.doesNotMatch(without.body, /warden<\/title>/);
    const wrong = await call(server, "GET", `/?token=${"x".repeat(token.length)}`);
    assert.equal(wrong.status, 401);
    const page = await call(server, "GET", `/?token=${token}`);
    assert.equal(page.status, 200);
    assert.match(page.body, /<title>warden<\/title>/);
    assert.match(String(page.headers["set-cookie"]), /warden-token=.*HttpOnly; SameSite=Strict/);
    const byCookie = await call(server, "GET", "/app.js", { cookie: `warden-token=${token}` });
    assert.equal(byCookie.status, 200);
  });

  test("every answer forbids inline script, framing and other origins, and sends no CORS header", async () => {
    for (const path of [`/?token=${token}`, "/api/tasks", "/nothing"]) {
      const answer = await call(server, "GET", path, bearer());
      const csp = String(answer.headers["content-security-policy"]);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /script-src 'self'(;|$)/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.equal(answer.headers["access-control-allow-origin"], undefined);
      assert.equal(answer.headers["x-content-type-options"], "nosniff");
    }
  });

  test("a request naming another host is refused, so a rebound DNS name cannot reach the server", async () => {
    const answer = await call(server, "GET", "/api/tasks", {
      ...bearer(),
      host: `attacker.example:${server.port}`,
    });
    assert.equal(answer.status, 421);
  });

  test("a change carries the token in its header: the cookie alone, or a form's type, is refused", async () => {
    const { id } = await tasks.create({ prompt: "cancel me" });
    const byCookie = await call(
      server,
      "POST",
      `/api/tasks/${id}/cancel`,
      { cookie: `warden-token=${token}`, "content-type": "application/json" },
      "{}",
    );
    assert.equal(byCookie.status, 401);
    const asForm = await call(
      server,
      "POST",
      `/api/tasks/${id}/cancel`,
      { ...bearer(), "content-type": "application/x-www-form-urlencoded" },
      "a=b",
    );
    assert.equal(asForm.status, 415);
    assert.equal((await tasks.get(id)).cancelRequested, false);
    const cancel = await call(
      server,
      "POST",
      `/api/tasks/${id}/cancel`,
      { ...bearer(), "content-type": "application/json" },
      "{}",
    );
    assert.equal(cancel.status, 200, cancel.body);
    assert.equal((await tasks.get(id)).cancelRequested, true);
  });

  test("suspend and resume carry the token in their header too, and go through the store's checks: a task nobody runs is neither suspended nor resumed", async () => {
    const { id } = await tasks.create({ prompt: "not running" });
    for (const action of ["suspend", "resume"]) {
      const byCookie = await call(
        server,
        "POST",
        `/api/tasks/${id}/${action}`,
        { cookie: `warden-token=${token}`, "content-type": "application/json" },
        "{}",
      );
      assert.equal(byCookie.status, 401, action);
      const asForm = await call(
        server,
        "POST",
        `/api/tasks/${id}/${action}`,
        { ...bearer(), "content-type": "text/plain" },
        "{}",
      );
      assert.equal(asForm.status, 415, action);
    }
    const suspend = await call(
      server,
      "POST",
      `/api/tasks/${id}/suspend`,
      { ...bearer(), "content-type": "application/json" },
      '{"now":true}',
    );
    assert.equal(suspend.status, 409, suspend.body);
    assert.equal(
      (JSON.parse(suspend.body) as { error: { code: string } }).error.code,
      "NOT_SUSPENDABLE",
    );
    const badNow = await call(
      server,
      "POST",
      `/api/tasks/${id}/suspend`,
      { ...bearer(), "content-type": "application/json" },
      '{"now":"yes"}',
    );
    assert.equal(badNow.status, 400, badNow.body);
    // The server's background runner refuses every run: a resume that got past the check would
    // answer 500, not the store's refusal.
    const resume = await call(
      server,
      "POST",
      `/api/tasks/${id}/resume`,
      { ...bearer(), "content-type": "application/json" },
      "{}",
    );
    assert.equal(resume.status, 409, resume.body);
    assert.equal(
      (JSON.parse(resume.body) as { error: { code: string } }).error.code,
      "NOT_SUSPENDED",
    );
    assert.equal((await tasks.get(id)).state, "created");
  });

  test("a rerun of a task with no repository is refused with the host's error, and makes no task", async () => {
    const { id } = await tasks.create({ prompt: "made by the store alone" });
    const before = (await tasks.list()).length;
    const answer = await call(
      server,
      "POST",
      `/api/tasks/${id}/rerun`,
      { ...bearer(), "content-type": "application/json" },
      "{}",
    );
    assert.equal(answer.status, 400);
    assert.equal(
      (JSON.parse(answer.body) as { error: { code: string } }).error.code,
      "NOT_A_HOST_TASK",
    );
    assert.equal((await tasks.list()).length, before);
    const byGet = await call(server, "GET", `/api/tasks/${id}/rerun`, bearer());
    assert.equal(byGet.status, 404, "a GET changes nothing");
  });

  test("the list is newest first, a page at a time, and its texts are cleaned", async () => {
    const hostile = "fix <script>alert(1)</script> \u202egnp.exe\u001b[31m";
    const { id } = await tasks.create({ prompt: hostile });
    const answer = await call(server, "GET", "/api/tasks", bearer());
    assert.equal(answer.status, 200);
    const list = JSON.parse(answer.body) as { tasks: { id: string; title: string }[] };
    assert.equal(list.tasks[0]?.id, id);
    const title = list.tasks.find((task) => task.id === id)?.title ?? "";
    assert.ok(
      !title.includes("\u202e") && !title.includes("\u001b"),
      "no bidi control or escape reaches the page",
    );
    assert.match(title, /<script>/, "markup stays text, for the page to show as text");
    const next = await call(server, "GET", `/api/tasks?before=${id}`, bearer());
    const rest = JSON.parse(next.body) as { tasks: { id: string }[] };
    assert.ok(!rest.tasks.some((task) => task.id === id));
  });

  test("a task made after the list feed opened is told at once, from the store's files", async () => {
    let made = false;
    const events = await readEvents(server, "/api/feed", token, (seen) => {
      if (seen.length === 1 && !made) {
        made = true;
        void tasks.create({ prompt: "new" });
      }
      return seen.length >= 2;
    });
    assert.deepEqual(
      events.map((e) => e.event),
      ["changed", "changed"],
    );
  });

  test("an event of a running task is told on the list feed too, without polling", async () => {
    const { id } = await tasks.create({ prompt: "busy" });
    const run = await tasks.attach(id);
    let wrote = false;
    const events = await readEvents(server, "/api/feed", token, (seen) => {
      if (seen.length === 1 && !wrote) {
        wrote = true;
        // Only the task's own directory changes: its events file.
        setTimeout(() => run.appendEvent("note", { text: "working" }), 100);
      }
      return seen.length >= 2;
    });
    assert.equal(events.length, 2);
    await run.finish({ state: "succeeded" });
  });

  test("a task's events stream from the first, new ones as they are written, until it ends", async () => {
    const { id } = await tasks.create({ prompt: "stream" });
    const run = await tasks.attach(id);
    run.appendEvent("note", { text: "before \u202e the watch" });
    let wrote = false;
    const events = await readEvents(server, `/api/tasks/${id}/events`, token, (seen) => {
      if (!wrote && seen.some((e) => (e.data as { type?: string }).type === "note")) {
        wrote = true;
        run.appendEvent("note", { text: "after" });
        void run.finish({ state: "succeeded" });
      }
      return seen.some((e) => e.event === "end");
    });
    const notes = events
      .map((e) => e.data as { type?: string; text?: string })
      .filter((e) => e.type === "note")
      .map((e) => e.text);
    assert.deepEqual(notes, ["before ? the watch", "after"]);
  });

  test("a message goes to the inbox as `warden send` puts it; an unknown task is 404", async () => {
    const { id } = await tasks.create({ prompt: "talk" });
    const sent = await call(
      server,
      "POST",
      `/api/tasks/${id}/messages`,
      { ...bearer(), "content-type": "application/json" },
      JSON.stringify({ text: "also the changelog" }),
    );
    assert.equal(sent.status, 200, sent.body);
    const inbox = await tasks.messages(id);
    assert.equal(inbox.length, 1);
    const missing = await call(server, "GET", "/api/tasks/zzzzzzzz", bearer());
    assert.equal(missing.status, 404);
    assert.equal(
      (JSON.parse(missing.body) as { error: { code: string } }).error.code,
      "TASK_NOT_FOUND",
    );
  });

  test("an approval answered through the server reaches the waiting run", async () => {
    const { id } = await tasks.create({ prompt: "ask" });
    const run = await tasks.attach(id);
    await run.askApproval({ tool: "Bash", input: "make deploy" });
    const page = JSON.parse((await call(server, "GET", `/api/tasks/${id}`, bearer())).body) as {
      approvalsPending: number;
    };
    assert.equal(page.approvalsPending, 1);
    const answer = await call(
      server,
      "POST",
      `/api/tasks/${id}/approvals/1`,
      { ...bearer(), "content-type": "application/json" },
      JSON.stringify({ decision: "deny" }),
    );
    assert.equal(answer.status, 200, answer.body);
    const settled = await run.awaitApproval(1, { timeoutMs: 5_000 });
    assert.equal(settled.decision, "deny");
    await run.finish({ state: "succeeded" });
  });
});

describe("the dashboard's token and address", () => {
  test("the token is kept 0600, rotation replaces it, and a file others can read is refused", async () => {
    const dir = await mkdtemp(join(tmpdir(), "warden-token-"));
    try {
      const first = await readOrMakeToken(dir);
      assert.equal((await stat(join(dir, TOKEN_FILE))).mode & 0o777, 0o600);
      assert.equal(await readOrMakeToken(dir), first);
      const second = await rotateToken(dir);
      assert.notEqual(second, first);
      assert.equal((await readFile(join(dir, TOKEN_FILE), "utf8")).trim(), second);
      await chmod(join(dir, TOKEN_FILE), 0o644);
      await assert.rejects(readOrMakeToken(dir), { code: "WEB_TOKEN" });
      await writeFile(join(dir, TOKEN_FILE), "short\n", { mode: 0o600 });
      await chmod(join(dir, TOKEN_FILE), 0o600);
      await assert.rejects(readOrMakeToken(dir), { code: "WEB_TOKEN" });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test("an address other machines can reach needs --public; a bad one is a usage error", () => {
    assert.deepEqual(parseListen("127.0.0.1:7420", false), {
      host: "127.0.0.1",
      port: 7420,
      loopback: true,
    });
    assert.equal(parseListen("[::1]:80", false).loopback, true);
    assert.throws(() => parseListen("0.0.0.0:7420", false), { code: "NOT_LOOPBACK" });
    assert.equal(parseListen("0.0.0.0:7420", true).loopback, false);
    assert.throws(() => parseListen("localhost", false), { code: "BAD_LISTEN" });
    assert.throws(() => parseListen("127.0.0.1:99999", false), { code: "BAD_LISTEN" });
  });
});
