// A task's life beyond one run, with the real Claude Code CLI in the real bubblewrap sandbox
// against a scripted Messages API: the runner's checkpoints at turn boundaries, an attach after
// the executor was killed with SIGKILL that starts from the last one (the workspace as the agent
// left it, its session resumed, so the model is shown the earlier turns), and `continue`, which
// carries a finished task's conversation into a new task.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  claudeSuite,
  NO_CLAUDE_SYSTEM,
  runClaude,
  shownToModel,
  waitForEvent,
  warden,
} from "./claudeTasks.js";
import { executorPid, idOf, until } from "./fixtures.js";

describe("checkpoints, resume and continue with Claude Code", { skip: NO_CLAUDE_SYSTEM }, () => {
  const suite = claudeSuite();

  async function view(id: string): Promise<Record<string, unknown>> {
    const show = await warden(suite.ws, suite.api, ["show", id, "--json"]);
    assert.equal(show.code, 0, show.stderr);
    return JSON.parse(show.stdout) as Record<string, unknown>;
  }

  test("after a SIGKILL of the executor, start resumes from the last checkpoint: the file written before is there and the model sees the earlier turns", async () => {
    const server = await suite.scripted([
      {
        kind: "tool_use",
        name: "Bash",
        text: "I will write the notes.",
        input: { command: "echo written before the kill > notes.txt" },
      },
      // The next answer never comes: the executor is killed while the model "thinks".
      { kind: "slow", text: "thinking" },
      { kind: "text", text: "Resumed and done." },
    ]);
    const run = await runClaude(suite.ws, server, "write notes.txt, then think hard", ["--detach"]);
    assert.equal(run.code, 0, run.stderr);
    const id = idOf(run);
    const kept = await waitForEvent(
      suite.ws,
      id,
      (e) => e.type === "checkpoint" && typeof e.tip === "string" && Number(e.sessionBytes) > 0,
    ).catch((error: unknown) => {
      const dir = join(suite.ws.dataDir, "tasks", id);
      console.log(readFileSync(join(dir, "events.jsonl"), "utf8"));
      console.log(readFileSync(join(dir, "results", "guest.log"), "utf8"));
      throw error;
    });
    await server.waitFor((r) => r.kind === "turn" && r.turn === 1);
    const running = await warden(suite.ws, server, ["diff", id]);
    assert.equal(running.code, 0, running.stderr);
    assert.match(running.stdout, /\+written before the kill/, "diff of the running task");
    assert.match(running.stderr, /as of checkpoint \d+/);
    process.kill(executorPid(suite.ws.dataDir, id), "SIGKILL");
    await until(async () => {
      const show = await warden(suite.ws, server, ["show", id, "--json"]);
      return (JSON.parse(show.stdout) as { state: string }).state === "interrupted";
    });

    const start = await warden(suite.ws, server, ["start", id, "--json"]);
    assert.equal(start.code, 0, start.stderr);
    const ended = JSON.parse(start.stdout) as Record<string, unknown>;
    assert.equal(ended.state, "succeeded");
    assert.equal(ended.summary, "Resumed and done.");

    const turns = server.turns();
    const resumed = turns.at(-1);
    assert.equal(resumed?.turn, 2, "the resumed run asked for the script's third answer");
    const shown = shownToModel(resumed.body);
    assert.match(shown, /write notes\.txt, then think hard/, "the first prompt, from the session");
    assert.match(shown, /echo written before the kill > notes\.txt/, "the earlier tool call");
    assert.match(shown, /was interrupted/, "told it was interrupted");

    const diff = await warden(suite.ws, server, ["diff", id]);
    assert.equal(diff.code, 0, diff.stderr);
    assert.match(diff.stdout, /\+written before the kill/);
    const show = await warden(suite.ws, server, ["show", id]);
    assert.match(
      show.stdout,
      new RegExp(`resumed: +from checkpoint ${String(kept.checkpoint)} after an interruption`),
    );
  });

  test("continue on a finished task makes a child that carries its conversation; --fork makes a root", async () => {
    const server = await suite.scripted([
      { kind: "text", text: "The secret word is heron." },
      { kind: "text", text: "You told me heron." },
      { kind: "text", text: "Still heron." },
    ]);
    const first = await runClaude(suite.ws, server, "remember the word heron", ["--json"]);
    assert.equal(first.code, 0, first.stderr);
    const parent = (JSON.parse(first.stdout) as { id: string }).id;

    const next = await warden(suite.ws, server, [
      "continue",
      parent,
      "--prompt",
      "which word was it?",
      "--json",
    ]);
    assert.equal(next.code, 0, next.stderr + next.stdout);
    const child = JSON.parse(next.stdout) as Record<string, unknown>;
    assert.equal(child.state, "succeeded");
    assert.equal((await view(String(child.id))).parent, parent);
    const shown = shownToModel(server.turns().at(-1)?.body);
    assert.match(shown, /remember the word heron/, "the parent's prompt");
    assert.match(shown, /The secret word is heron\./, "the parent's answer");
    assert.match(shown, /which word was it\?/);

    const fork = await warden(suite.ws, server, [
      "continue",
      parent,
      "--fork",
      "--prompt",
      "and now?",
      "--json",
    ]);
    assert.equal(fork.code, 0, fork.stderr);
    const forked = JSON.parse(fork.stdout) as Record<string, unknown>;
    assert.equal(forked.state, "succeeded");
    assert.equal((await view(String(forked.id))).parent, null, "a fork is not linked as a child");
    assert.match(shownToModel(server.turns().at(-1)?.body), /remember the word heron/);
  });
});
