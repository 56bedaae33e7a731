// What `run` and `show` print under a failed task: the end of the agent's stderr, cleaned and
// cut, the last events, and where the rest is; and, for a model API that refuses the key, the
// task ended at once with the fix. The built `warden`, real sandboxes, a real loopback server.
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { test } from "node:test";
import { cleanEnv, runArgs, runCli, type CliResult } from "../e2e/fixtures.js";
import { describeCli } from "../support/cliSuite.js";
import { shellAgent } from "../support/share.js";

/** The task's short id as the end line shows it, which the tail's pointers use. */
function idOf(run: CliResult): string {
  const id = /^([0-9a-z]{26}) /.exec(run.stdout)?.[1];
  assert.ok(id !== undefined, run.stdout + run.stderr);
  return id;
}

const NOISY_FAILURE =
  'for i in $(seq 1 30); do echo "stderr line $i" >&2; done; ' +
  "printf 'colour \\033[31mred\\033[0m\\n' >&2; " +
  "head -c 2000 /dev/zero | tr '\\0' x >&2; echo >&2; " +
  "echo 'Error: cannot frobnicate the widget' >&2; exit 3";

describeCli("the tail of a failed task", (ws) => {
  test("run prints the agent's last stderr lines, cleaned and cut, the last events, and where the rest is; show prints them too", async () => {
    const run = await runCli(ws.dataDir, runArgs(ws.repo, "x", [], shellAgent(NOISY_FAILURE)));
    assert.equal(run.code, 1, run.stderr);
    const id = idOf(run);
    const short = /warden logs ([0-9a-z]+)\n/.exec(run.stdout)?.[1] ?? "";
    assert.ok(id.startsWith(short) && short.length >= 8, run.stdout);
    const tail = run.stdout.split("\n");
    const head = tail.findIndex((l) => l.startsWith("agent stderr, last 12 lines"));
    assert.equal(
      tail[head],
      `agent stderr, last 12 lines (all: warden logs --agent-log ${short}):`,
    );
    const shown = tail.slice(head + 1, head + 13);
    assert.equal(shown.at(-1), "  Error: cannot frobnicate the widget");
    assert.ok(shown.includes("  colour ?[31mred?[0m"), "escapes are cleaned");
    assert.ok(
      shown.some((l) => l.endsWith("…") && l.length < 400),
      "a long line is cut",
    );
    assert.ok(!shown.includes("  stderr line 18"), "only the last lines");
    assert.ok(shown.includes("  stderr line 30"));
    assert.match(
      run.stdout,
      new RegExp(`^last events \\(all: warden watch ${short} --no-follow\\):$`, "m"),
    );
    const events = run.stdout.slice(run.stdout.indexOf("last events"));
    assert.match(events, /warden-guest: the agent exited with 3/);
    assert.doesNotMatch(events, /frobnicate/, "stderr lines are not shown twice");

    const show = await runCli(ws.dataDir, ["show", id]);
    assert.equal(show.code, 0, show.stderr);
    assert.match(show.stdout, /^agent stderr, last 12 lines \(all: warden logs --agent-log /m);
    assert.match(show.stdout, /^ {2}Error: cannot frobnicate the widget$/m);
  });

  test("a short stderr is shown whole; an agent that wrote nothing on stderr: the tail says so and points at its own stream", async () => {
    const short = await runCli(
      ws.dataDir,
      runArgs(ws.repo, "x", [], shellAgent("echo 'the only line' >&2; exit 5")),
    );
    assert.equal(short.code, 1);
    assert.match(
      short.stdout,
      /^agent stderr \(warden logs --agent-log [0-9a-z]+\):\n {2}the only line\n/m,
    );
    const run = await runCli(ws.dataDir, runArgs(ws.repo, "x", [], shellAgent("exit 4")));
    assert.equal(run.code, 1);
    assert.match(
      run.stdout,
      /^agent stderr: empty; the agent's own stream: warden logs --transcript [0-9a-z]+$/m,
    );
  });

  test("a task that succeeded has no tail", async () => {
    const run = await runCli(ws.dataDir, runArgs(ws.repo, "x", [], shellAgent("echo fine >&2")));
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stdout, /agent stderr|last events/);
    const show = await runCli(ws.dataDir, ["show", idOf(run)]);
    assert.doesNotMatch(show.stdout, /agent stderr|last events/);
  });

  test("a command agent whose model API refuses the key: the task ends at once, and the tail holds the fix", async () => {
    let hits = 0;
    const api: Server = createServer((req, res) => {
      hits++;
      req.resume();
      res.writeHead(401, { "content-type": "application/json" });
      res.end(
        '{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}',
      );
    });
    const url = await new Promise<string>((resolve) => {
      api.listen(0, "127.0.0.1", () => {
        const address = api.address();
        resolve(`http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`);
      });
    });
    try {
      // An agent that retries for ever, as a model client does with a 401.
      const loop =
        'while true; do curl -s -o /dev/null -X POST "$ANTHROPIC_BASE_URL/v1/messages" -d "{}"; sleep 0.2; done';
      const started = Date.now();
      const run = await runCli(
        ws.dataDir,
        runArgs(ws.repo, "x", ["--timeout", "5m"], shellAgent(loop)),
        {
          env: cleanEnv({ ANTHROPIC_BASE_URL: url, ANTHROPIC_API_KEY: "sk-ant-wrong" }),
        },
      );
      assert.equal(run.code, 1, run.stderr);
      assert.ok(Date.now() - started < 30_000, "ended by the host, not by the timeout");
      assert.match(
        run.stdout,
        new RegExp(`failed: the anthropic API at ${url} refused the API key \\(HTTP 401\\)`),
      );
      assert.match(
        run.stdout,
        /^hint: check ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN on the host; `warden doctor --check-api`/m,
      );
      assert.match(run.stdout, /api_failure: the anthropic API at .* refused the API key/);
      assert.match(run.stderr, /warning.*refused the API key/, "said while it ran");
      assert.ok(hits >= 1 && hits < 10, `the upstream was asked ${hits} times`);
      const show = await runCli(ws.dataDir, ["show", idOf(run), "--json"]);
      const details = (JSON.parse(show.stdout) as { details: Record<string, unknown> }).details;
      assert.equal(details.code, "API_KEY_REJECTED");
    } finally {
      api.close();
    }
  });
});
