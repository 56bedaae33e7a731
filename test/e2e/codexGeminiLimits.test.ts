// The model API's usage limit with Codex CLI and Gemini CLI, the real CLIs in the real bubblewrap
// sandbox: a 429 that says, in its provider's own way, when the limit resets (OpenAI's
// x-ratelimit-reset-* headers, Gemini's RetryInfo retryDelay) suspends the task by itself until
// then and it runs on to its end; a reset after the task's deadline ends it at once.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  agentSkip,
  agentSuite,
  CODEX,
  GEMINI,
  usageLimitClock,
  type Step,
} from "./codexGeminiTasks.js";
import { assertEndedPastDeadline, cleanEnv, runCli, taskEvents } from "./fixtures.js";

for (const agentCase of [CODEX, GEMINI]) {
  const { agent } = agentCase;

  describe(`the usage limit of ${agent}'s API`, { skip: agentSkip(agentCase) }, () => {
    const suite = agentSuite(agentCase);

    async function run(steps: readonly Step[], args: string[]) {
      const { api, run: runTask } = await suite.scripted(steps);
      return { api, ran: await runTask("say done", ["--json", ...args]) };
    }

    test("a 429 whose limit resets in a few seconds suspends the task, which resumes by itself at the reset, goes on with the same conversation and succeeds", async () => {
      const clock = usageLimitClock(8000);
      const { api, ran } = await run(
        [
          { kind: "shell", command: "echo written before the limit > notes.txt" },
          { kind: "limit", clock },
          { kind: "text", text: "Done after the limit." },
        ],
        [],
      );
      assert.equal(ran.code, 0, ran.stderr);
      const ended = JSON.parse(ran.stdout) as Record<string, unknown>;
      assert.equal(ended.state, "succeeded", ran.stdout);
      assert.equal(ended.summary, "Done after the limit.");
      const seen = await taskEvents(suite.ws.dataDir, String(ended.id));
      const told = seen.find((e) => e.type === "usage_limit");
      assert.ok(told !== undefined, "the relay told the host of the limit");
      assert.equal(told.verdict, "wait");
      assert.equal(told.source, agentCase.limitSource);
      const suspended = seen.find((e) => e.type === "suspended");
      assert.equal(suspended?.reason, "usage_limit");
      const resetAt = clock.resetAt();
      assert.ok(typeof suspended.resumeAt === "number" && suspended.resumeAt >= resetAt - 1000);
      const resumed = seen.find((e) => e.type === "attached" && e.resumed === "usage_limit");
      assert.ok(resumed !== undefined, "it was attached again to resume");
      assert.ok(resumed.at >= resetAt - 1000, "not before the reset");
      assert.match(ran.stderr, /usage limit was reached; the task is suspended until/);
      const shown = JSON.stringify(api.bodies().at(-1));
      assert.ok(shown.includes("say done"), "the first prompt, from the kept conversation");
      assert.ok(shown.includes("echo written before the limit"), "the tool call before the limit");
      const diff = await runCli(suite.ws.dataDir, ["diff", String(ended.id)], { env: cleanEnv() });
      assert.match(diff.stdout, /\+written before the limit/);
    });

    test("a 429 whose limit resets after the deadline ends the task at once: failed, stopped by the usage limit", async () => {
      const clock = usageLimitClock(3_600_000);
      const started = Date.now();
      const { ran } = await run([{ kind: "limit", clock }], ["--deadline", "10m"]);
      assert.ok(Date.now() - started < 120_000, "it did not wait");
      await assertEndedPastDeadline(suite.ws.dataDir, ran);
    });
  });
}
