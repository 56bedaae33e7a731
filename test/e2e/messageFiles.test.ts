// `warden send --file`: files sent with a message reach the real Claude Code CLI inside the real
// bubblewrap sandbox, in the workspace under .warden-inbox/<n>/, named in the message the model
// reads, byte for byte, and outside the changes the task hands back.
import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, test } from "node:test";
import {
  agentEvent,
  claudeSuite,
  NO_CLAUDE_SYSTEM,
  runClaude,
  shownToModel,
  waitForEvent,
  warden,
} from "./claudeTasks.js";
import { idOf } from "./fixtures.js";
import type { ScriptedAnthropic, ScriptedTurn } from "../support/scriptedAnthropic.js";

describe("files sent with a message", { skip: NO_CLAUDE_SYSTEM }, () => {
  const suite = claudeSuite();

  /**
   * A detached Claude Code task whose first turn keeps a Bash call busy for about 4 s, so a
   * message sent once it has begun waits for the turn boundary; `then` are the turns after it.
   */
  async function busyTask(
    then: ScriptedTurn[],
  ): Promise<{ server: ScriptedAnthropic; id: string }> {
    const server = await suite.scripted([
      {
        kind: "tool_use",
        name: "Bash",
        input: { command: "for i in $(seq 1 40); do sleep 0.1; done; echo step one" },
      },
      { kind: "text", text: "Step one is done." },
      ...then,
    ]);
    const run = await runClaude(suite.ws, server, "do step one", ["--detach"]);
    assert.equal(run.code, 0, run.stderr);
    const id = idOf(run);
    await waitForEvent(suite.ws, id, agentEvent("tool_use"));
    return { server, id };
  }

  test("the model reads the files sent with a message, byte for byte, and git hands none of them back", async () => {
    const blob = randomBytes(50_000);
    const digest = createHash("sha256").update(blob).digest("hex");
    const notes = join(suite.ws.root, "notes.md");
    const blobPath = join(suite.ws.root, "blob.bin");
    await writeFile(notes, "# the spec\nthe answer is 42\n");
    await writeFile(blobPath, blob);
    const { server, id } = await busyTask([
      {
        kind: "tool_use",
        name: "Bash",
        input: {
          command:
            "cat .warden-inbox/1/notes.md; sha256sum .warden-inbox/1/blob.bin; " +
            "echo STATUS-START; git status --porcelain --untracked-files=all; echo STATUS-END",
        },
      },
      { kind: "text", text: "I read them." },
    ]);
    const send = await warden(suite.ws, server, [
      "send",
      id,
      "read the files",
      "--file",
      notes,
      "--file",
      blobPath,
      "--await",
      "--timeout",
      "60s",
    ]);
    assert.equal(send.code, 0, send.stderr);
    assert.equal(send.stdout, "I read them.\n");
    const turns = server.turns();
    assert.equal(turns.length, 4);
    const told = shownToModel(turns[2]?.body);
    assert.match(told, /read the files/);
    assert.match(
      told,
      /2 files came with this message, in .warden-inbox\/1\/ under your working directory: notes.md \(28 bytes\), blob.bin \(50,000 bytes\)/,
    );
    const seen = shownToModel(turns[3]?.body);
    assert.match(seen, /the answer is 42/);
    assert.match(seen, new RegExp(`${digest}  .warden-inbox/1/blob.bin`));
    assert.match(seen, /STATUS-START\\nSTATUS-END/, "git sees no change");
    const wait = await warden(suite.ws, server, ["wait", id, "--timeout", "60s"]);
    assert.equal(wait.code, 0, wait.stderr);
    const diff = await warden(suite.ws, server, ["diff", id]);
    assert.equal(diff.code, 0, diff.stderr);
    assert.equal(diff.stdout, "", "the files are not among the task's changes");
  });

  test("a file the agent names in its reply comes back with the reply, and send --await says where", async () => {
    const { server, id } = await busyTask([
      {
        kind: "tool_use",
        name: "Bash",
        input: { command: "printf '# report\\nall good\\n' > report.md" },
      },
      { kind: "text", text: "Here is the report.\nwarden-file: report.md" },
    ]);
    const send = await warden(suite.ws, server, [
      "send",
      id,
      "write a report and hand it back",
      "--await",
      "--timeout",
      "60s",
      "--json",
    ]);
    assert.equal(send.code, 0, send.stderr);
    const answer = JSON.parse(send.stdout) as {
      reply: string;
      replyFiles: { name: string; bytes: number; path: string }[];
    };
    assert.equal(answer.reply, "Here is the report.\nwarden-file: report.md");
    assert.deepEqual(
      answer.replyFiles.map((f) => [f.name, f.bytes]),
      [["report.md", 18]],
    );
    assert.equal(await readFile(answer.replyFiles[0]?.path ?? "", "utf8"), "# report\nall good\n");
    assert.match(
      shownToModel(server.turns()[2]?.body),
      /warden-file: PATH/,
      "the model was told how",
    );
    const wait = await warden(suite.ws, server, ["wait", id, "--timeout", "60s"]);
    assert.equal(wait.code, 0, wait.stderr);
  });
});
