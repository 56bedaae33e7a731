// A resumed Claude Code run: the session a checkpoint put back is named with --resume in one
// argument, and the resume's message (not the task's prompt) is its first user message; the
// session file is where Claude Code looks for it, and a project name it would hash has none.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { checkSettings } from "../../src/protocol/index.js";
import { adapterFor } from "../../src/agents/index.js";
import { claudeLaunch } from "../../src/agents/claude/launch.js";
import { userMessageLine } from "../../src/agents/claude/input.js";
import { claudeSessionFile } from "../../src/agents/claude/session.js";

describe("resuming Claude Code", () => {
  test("--resume names the session and the resume's message is the first user message", () => {
    const plan = claudeLaunch({
      settings: checkSettings({ agent: "claude" }),
      prompt: "the task's prompt",
      home: "/scratch/agent-home",
      resume: {
        sessionId: "c9150e30-8a02-4121-9f9b-e311636d160d",
        message: "you were interrupted",
      },
    });
    assert.ok(plan.argv.includes("--resume=c9150e30-8a02-4121-9f9b-e311636d160d"));
    assert.equal(plan.stdin, userMessageLine("you were interrupted"));
    assert.equal(
      claudeLaunch({ settings: checkSettings({ agent: "claude" }), prompt: "p" }).argv.some((a) =>
        a.startsWith("--resume"),
      ),
      false,
      "a run that resumes nothing names no session",
    );
  });

  test("the session file is under the config dir's projects, named by the working directory", () => {
    assert.equal(
      claudeSessionFile("/scratch/agent-home", "/work/space_1", "abc-123"),
      "/scratch/agent-home/.claude/projects/-work-space-1/abc-123.jsonl",
    );
    assert.equal(claudeSessionFile("/h", `/${"d".repeat(250)}`, "abc"), undefined);
    const sessions = adapterFor("claude").sessions;
    assert.ok(sessions !== undefined);
    assert.deepEqual(sessions.find("/h", "/w", "abc"), {
      kind: "path",
      path: "/h/.claude/projects/-w/abc.jsonl",
    });
    assert.deepEqual(sessions.place("/h", "/w", "abc"), {
      path: "/h/.claude/projects/-w/abc.jsonl",
      files: [],
    });
    assert.equal(adapterFor("command").sessions, undefined, "a command keeps no session");
  });
});
