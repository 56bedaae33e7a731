// A setup goal run by the real Claude Code CLI in the sandbox, against a scripted Messages API: the
// goal is the prompt of a run of its own, before the run of the task's prompt; what that run left
// in the workspace is there for the task's run; setup's variable reaches the goal's run only.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, test } from "node:test";
import { claudeEnv, claudeSuite, NO_CLAUDE_SYSTEM, shownToModel } from "./claudeTasks.js";
import { runCli } from "./fixtures.js";

const GOAL = "prepare-the-environment-goal: install the dependencies";
const PROMPT = "the-task-prompt: use the dependencies";
const SECRET = "goal-secret-4c2a";

describe("a setup goal run by Claude Code", { skip: NO_CLAUDE_SYSTEM }, () => {
  const suite = claudeSuite();

  test("the scripted API sees the goal as the prompt of a run before the task's, and the task finds what it made", async () => {
    const digest = createHash("sha256").update(SECRET).digest("hex");
    const server = await suite.scripted([
      {
        kind: "tool_use",
        name: "Bash",
        text: "Installing.",
        input: {
          command:
            `mkdir -p node_modules/dep && ` +
            `printf %s "$GOAL_TOKEN" | sha256sum | cut -d' ' -f1 > node_modules/dep/token-digest`,
        },
      },
      { kind: "text", text: "Dependencies installed." },
      {
        kind: "tool_use",
        name: "Bash",
        input: {
          command: `cat node_modules/dep/token-digest; echo "token in task: [$GOAL_TOKEN]"`,
        },
      },
      { kind: "text", text: "Used them." },
    ]);
    const run = await runCli(
      suite.ws.dataDir,
      [
        "run",
        "--repo",
        suite.ws.repo,
        "--prompt",
        PROMPT,
        "--json",
        "--setup-goal",
        GOAL,
        "--setup-env",
        "GOAL_TOKEN",
      ],
      { env: { ...claudeEnv(server), GOAL_TOKEN: SECRET } },
    );
    assert.equal(run.code, 0, run.stderr);
    const turns = server.turns();
    const goalAt = turns.findIndex((t) =>
      shownToModel(t.body).includes("prepare-the-environment-goal"),
    );
    const taskAt = turns.findIndex((t) => shownToModel(t.body).includes("the-task-prompt"));
    assert.ok(goalAt >= 0, "the goal never reached the model");
    assert.ok(taskAt > goalAt, "the task's prompt came before the goal's run ended");
    // Separate runs: the task's conversation never holds the goal, nor the goal's the task.
    assert.ok(!shownToModel(turns[taskAt]?.body).includes("prepare-the-environment-goal"));
    assert.ok(!shownToModel(turns[goalAt]?.body).includes("the-task-prompt"));
    const last = shownToModel(turns.at(-1)?.body);
    assert.ok(
      last.includes(digest),
      "the goal's run did not see its variable, or its file is gone",
    );
    assert.ok(last.includes("token in task: []"), "the task's run saw the setup's variable");
  });
});
