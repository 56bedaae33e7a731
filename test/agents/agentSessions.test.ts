// Where Codex CLI and Gemini CLI keep their conversations, as plans: where to look for one by its
// id, and where a kept one goes back (with Gemini's marker that ties the project to the working
// directory) so that the CLI's own resume finds it. The real CLIs resuming from these places is
// tested whole in test/e2e/codexGeminiCheckpoints.test.ts.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { adapterFor } from "../../src/agents/index.js";

const HOME = "/tmp/warden-scratch/agent-home";
const ID = "01a235ec-5274-7b01-bd14-e9c159f563ac";

describe("the agents' conversation files", () => {
  test("Codex's rollout is searched for under CODEX_HOME/sessions by its thread id, and goes back under a name of its shape", () => {
    const sessions = adapterFor("codex").sessions;
    assert.ok(sessions !== undefined);
    assert.deepEqual(sessions.find(HOME, "/workspace", ID), {
      kind: "search",
      dir: `${HOME}/.codex/sessions`,
      depth: 3,
      prefix: "rollout-",
      suffix: `-${ID}.jsonl`,
    });
    const place = sessions.place(HOME, "/workspace", ID);
    assert.deepEqual(place, {
      path: `${HOME}/.codex/sessions/rollout-1970-01-01T00-00-00-${ID}.jsonl`,
      files: [],
    });
    assert.match(place.path.split("/").at(-1) ?? "", /^rollout-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-/);
  });

  test("Gemini's is searched for in its projects' chats by the id's first 8 characters, and goes back into a project that names the working directory", () => {
    const sessions = adapterFor("gemini").sessions;
    assert.ok(sessions !== undefined);
    assert.deepEqual(sessions.find(HOME, "/workspace/sub", ID), {
      kind: "search",
      dir: `${HOME}/.gemini/tmp`,
      depth: 2,
      prefix: "session-",
      suffix: "-01a235ec.jsonl",
    });
    assert.deepEqual(sessions.place(HOME, "/workspace/sub", ID), {
      path: `${HOME}/.gemini/tmp/warden-resumed/chats/session-resumed-01a235ec.jsonl`,
      files: [{ path: `${HOME}/.gemini/tmp/warden-resumed/.project_root`, text: "/workspace/sub" }],
    });
  });
});
