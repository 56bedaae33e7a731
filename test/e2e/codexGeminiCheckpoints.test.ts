// Codex CLI's and Gemini CLI's sessions beyond one run, with the real CLIs in the real bubblewrap
// sandbox against scripted APIs: the checkpoints carry each agent's session file, so an attach
// after the executor was killed with SIGKILL starts from the last one (the workspace as the agent
// left it, its session resumed, so the model is shown the earlier turns), and `continue` carries
// a finished task's conversation into a new task.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import { waitForEvent } from "./claudeTasks.js";
import { agentSkip, agentSuite, CODEX, GEMINI, type Step } from "./codexGeminiTasks.js";
import { executorPid, idOf, until } from "./fixtures.js";

for (const agentCase of [CODEX, GEMINI]) {
  const { agent } = agentCase;

  describe(`checkpoints, resume and continue with ${agent}`, { skip: agentSkip(agentCase) }, () => {
    const suite = agentSuite(agentCase);
    const scripted = (steps: readonly Step[]) => suite.scripted(steps);

    test("after a SIGKILL of the executor, start resumes from the last checkpoint: the file written before is there and the model sees the earlier turns of the same session", async () => {
      const { api, warden, run } = await scripted([
        { kind: "shell", command: "echo written before the kill > notes.txt" },
        // The next answer never comes: the executor is killed while the model "thinks".
        { kind: "hold" },
        { kind: "text", text: "Resumed and done." },
      ]);
      const started = await run("write notes.txt, then think hard", ["--detach"]);
      assert.equal(started.code, 0, started.stderr);
      const id = idOf(started);
      const kept = await waitForEvent(
        suite.ws,
        id,
        (e) => e.type === "checkpoint" && typeof e.tip === "string" && Number(e.sessionBytes) > 0,
        120_000,
      ).catch((error: unknown) => {
        const dir = join(suite.ws.dataDir, "tasks", id);
        console.log(readFileSync(join(dir, "events.jsonl"), "utf8"));
        throw error;
      });
      await until(async () => Promise.resolve(api.bodies().length >= 2));
      process.kill(executorPid(suite.ws.dataDir, id), "SIGKILL");
      await until(async () => {
        const show = await warden(["show", id, "--json"]);
        return (JSON.parse(show.stdout) as { state: string }).state === "interrupted";
      });

      const start = await warden(["start", id, "--json"]);
      assert.equal(start.code, 0, start.stderr);
      const ended = JSON.parse(start.stdout) as Record<string, unknown>;
      assert.equal(ended.state, "succeeded", start.stdout);
      assert.equal(ended.summary, "Resumed and done.");

      const bodies = api.bodies();
      assert.equal(bodies.length, 3, "the resumed run asked for the script's third answer");
      const shown = JSON.stringify(bodies.at(-1));
      assert.match(
        shown,
        /write notes\.txt, then think hard/,
        "the first prompt, from the session",
      );
      assert.match(shown, /echo written before the kill > notes\.txt/, "the earlier tool call");
      assert.match(shown, /was interrupted/, "told it was interrupted");

      const diff = await warden(["diff", id]);
      assert.equal(diff.code, 0, diff.stderr);
      assert.match(diff.stdout, /\+written before the kill/);
      const show = await warden(["show", id]);
      assert.match(
        show.stdout,
        new RegExp(`resumed: +from checkpoint ${String(kept.checkpoint)} after an interruption`),
      );
      const log = readFileSync(join(suite.ws.dataDir, "tasks", id, "results", "guest.log"), "utf8");
      assert.match(log, /resuming the agent's session/);
    });

    test("continue on a finished task makes a child whose first request carries the parent's conversation", async () => {
      const { api, warden, run } = await scripted([
        { kind: "text", text: "The secret word is heron." },
        { kind: "text", text: "You told me heron." },
      ]);
      const first = await run("remember the word heron", ["--json"]);
      assert.equal(first.code, 0, first.stderr);
      const parent = (JSON.parse(first.stdout) as { id: string }).id;

      const next = await warden(["continue", parent, "--prompt", "which word was it?", "--json"]);
      assert.equal(next.code, 0, next.stderr + next.stdout);
      const child = JSON.parse(next.stdout) as Record<string, unknown>;
      assert.equal(child.state, "succeeded");
      assert.equal(child.summary, "You told me heron.");
      const bodies = api.bodies();
      assert.equal(bodies.length, 2);
      const shown = JSON.stringify(bodies.at(-1));
      assert.match(shown, /remember the word heron/, "the parent's prompt");
      assert.match(shown, /The secret word is heron\./, "the parent's answer");
      assert.match(shown, /which word was it\?/);
    });
  });
}
