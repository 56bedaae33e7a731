// The host's end of the checkpoints treats every piece as hostile: a checkpoint is kept only
// when its pieces came in order and within bounds, its bundle's header builds on the base and
// carries the tip it names and nothing else, and its session file is JSON lines; anything else is
// refused, the kept checkpoint stays as it was, and the first refusal is recorded.
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { CheckpointReceiver, readCheckpoint } from "../../../src/host/checkpoints/index.js";
import { adapterFor } from "../../../src/agents/index.js";
import type { AgentName, ChannelResponse } from "../../../src/protocol/index.js";
import { git, makeRepo } from "../../support/share.js";

interface Fixture {
  base: string;
  tip: string;
  /** base..tip as warden/task. */
  bundle: Buffer;
  /** base..tip as warden/task and one more ref. */
  twoRefs: Buffer;
}

const SESSION = Buffer.from('{"type":"user","text":"hi"}\n{"type":"assistant","text":"ok"}\n');

describe("the host's checkpoint receiver", () => {
  let root = "";
  let fx: Fixture;
  before(async () => {
    root = await mkdtemp(join(tmpdir(), "warden-receiver-"));
    const { repo, head: base } = await makeRepo(join(root, "repo"));
    await git(repo, "switch", "--quiet", "-c", "warden/task");
    await writeFile(join(repo, "a.txt"), "a\n");
    await git(repo, "add", "a.txt");
    await git(repo, "commit", "--quiet", "-m", "a");
    const tip = await git(repo, "rev-parse", "HEAD");
    await git(
      repo,
      "bundle",
      "create",
      "--quiet",
      join(root, "one.bundle"),
      "warden/task",
      `^${base}`,
    );
    await git(repo, "branch", "other");
    await git(
      repo,
      "bundle",
      "create",
      "--quiet",
      join(root, "two.bundle"),
      "warden/task",
      "other",
      `^${base}`,
    );
    fx = {
      base,
      tip,
      bundle: await readFile(join(root, "one.bundle")),
      twoRefs: await readFile(join(root, "two.bundle")),
    };
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  let serial = 0;
  async function receiver(agent: AgentName = "claude"): Promise<{
    taskDir: string;
    receiver: CheckpointReceiver;
    events: { type: string; data: Record<string, unknown> }[];
  }> {
    const taskDir = join(root, `task-${++serial}`);
    await mkdir(taskDir);
    const events: { type: string; data: Record<string, unknown> }[] = [];
    const r = new CheckpointReceiver({
      taskDir,
      base: fx.base,
      attempt: 1,
      sessions: adapterFor(agent).sessions,
      event: (type, data) => events.push({ type, data }),
    });
    return { taskDir, receiver: r, events };
  }

  let id = 0;
  const piece = (r: CheckpointReceiver, part: "bundle" | "session", offset: number, data: Buffer) =>
    r.answer({
      v: 1,
      id: ++id,
      op: "checkpoint.piece",
      part,
      offset,
      data: data.toString("base64"),
    });
  const end = (r: CheckpointReceiver, fields: Record<string, unknown>) =>
    r.answer({
      v: 1,
      id: ++id,
      op: "checkpoint.end",
      head: fx.tip,
      turn: 1,
      bundleBytes: 0,
      sessionBytes: 0,
      ...fields,
    } as never);
  const refused = (answer: ChannelResponse): string => {
    if (answer.ok) assert.fail(`a checkpoint request was taken: ${JSON.stringify(answer)}`);
    return answer.error.message;
  };

  test("keeps a whole checkpoint: manifest, bundle and session, and records it", async () => {
    const { taskDir, receiver: r, events } = await receiver();
    const half = Math.floor(fx.bundle.length / 2);
    assert.equal((await piece(r, "bundle", 0, fx.bundle.subarray(0, half))).ok, true);
    assert.equal((await piece(r, "bundle", half, fx.bundle.subarray(half))).ok, true);
    assert.equal((await piece(r, "session", 0, SESSION)).ok, true);
    const answer = await end(r, {
      sessionId: "c9150e30-8a02-4121-9f9b-e311636d160d",
      bundleBytes: fx.bundle.length,
      sessionBytes: SESSION.length,
    });
    assert.deepEqual(answer, { v: 1, id, ok: true, op: "checkpoint.end", seq: 1 });
    const kept = await readCheckpoint(taskDir);
    assert.equal(kept?.manifest.head, fx.tip);
    assert.deepEqual(await readFile(kept.bundle ?? ""), fx.bundle);
    assert.deepEqual(await readFile(kept.session ?? ""), SESSION);
    assert.equal(events[0]?.type, "checkpoint");
  });

  test("refuses a bundle that carries another ref, and keeps the checkpoint it had", async () => {
    const { taskDir, receiver: r, events } = await receiver();
    await piece(r, "bundle", 0, fx.bundle);
    await end(r, { bundleBytes: fx.bundle.length });
    await piece(r, "bundle", 0, fx.twoRefs);
    assert.match(refused(await end(r, { bundleBytes: fx.twoRefs.length })), /carries the ref/);
    assert.equal((await readCheckpoint(taskDir))?.manifest.seq, 1, "the kept one stays");
    assert.equal(events.at(-1)?.type, "checkpoint_refused");
  });

  test("refuses a bundle whose tip is not the one named, or a head with no bundle", async () => {
    const { taskDir, receiver: r } = await receiver();
    await piece(r, "bundle", 0, fx.bundle);
    assert.match(refused(await end(r, { head: fx.base, bundleBytes: fx.bundle.length })), /tip/);
    assert.match(refused(await end(r, {})), /no bundle/);
    assert.equal(await readCheckpoint(taskDir), undefined);
  });

  test("refuses pieces out of order, a piece over its bound and sizes that were not sent", async () => {
    const { receiver: r } = await receiver();
    assert.match(refused(await piece(r, "bundle", 5, fx.bundle)), /begin at 0/);
    await piece(r, "bundle", 0, fx.bundle.subarray(0, 10));
    assert.match(refused(await piece(r, "bundle", 20, fx.bundle.subarray(10))), /out of order/);
    assert.match(refused(await piece(r, "bundle", 0, Buffer.alloc(256 * 1024 + 1))), /bound/);
    await piece(r, "bundle", 0, fx.bundle);
    assert.match(refused(await end(r, { bundleBytes: fx.bundle.length + 1 })), /sizes/);
  });

  test("refuses a bundle that is not one, and a session file that is not JSON lines", async () => {
    const { receiver: r } = await receiver();
    const junk = Buffer.from("# v2 git bundle\n-not an oid\n\nPACK");
    await piece(r, "bundle", 0, junk);
    refused(await end(r, { bundleBytes: junk.length }));
    await piece(r, "bundle", 0, fx.bundle);
    const session = Buffer.from('{"ok":1}\n[1,2]\n');
    await piece(r, "session", 0, session);
    assert.match(
      refused(
        await end(r, {
          sessionId: "abc",
          bundleBytes: fx.bundle.length,
          sessionBytes: session.length,
        }),
      ),
      /session file/,
    );
    await piece(r, "bundle", 0, fx.bundle);
    const binary = Buffer.from([0xff, 0xfe, 0x0a]);
    await piece(r, "session", 0, binary);
    refused(
      await end(r, {
        sessionId: "abc",
        bundleBytes: fx.bundle.length,
        sessionBytes: binary.length,
      }),
    );
  });

  /** Sends a checkpoint of the bundle and `session` as the file of session `sessionId`. */
  async function withSession(
    r: CheckpointReceiver,
    session: string,
    sessionId: string,
  ): Promise<ChannelResponse> {
    await piece(r, "bundle", 0, fx.bundle);
    await piece(r, "session", 0, Buffer.from(session));
    return end(r, {
      sessionId,
      bundleBytes: fx.bundle.length,
      sessionBytes: Buffer.byteLength(session),
    });
  }

  const THREAD = "01a235ec-5274-7b01-bd14-e9c159f563ac";
  /** The start of a Codex 0.171 rollout, as it writes one. */
  const ROLLOUT = [
    {
      timestamp: "2026-12-02T08:43:29.926Z",
      ordinal: 0,
      type: "session_meta",
      payload: { id: THREAD, cwd: "/w" },
    },
    {
      timestamp: "2026-12-02T08:43:29.935Z",
      ordinal: 1,
      type: "event_msg",
      payload: { type: "task_started" },
    },
    {
      timestamp: "2026-12-02T08:43:30.026Z",
      ordinal: 2,
      type: "response_item",
      payload: { type: "message", role: "user" },
    },
  ];
  const lines = (values: readonly unknown[]): string =>
    values.map((v) => `${JSON.stringify(v)}\n`).join("");

  test("keeps a Codex rollout of the thread it names; refuses another thread's, a line of another shape, and Claude's lines", async () => {
    const { receiver: r, taskDir } = await receiver("codex");
    assert.equal((await withSession(r, lines(ROLLOUT), THREAD)).ok, true);
    const kept = await readFile(join(taskDir, "checkpoint", "session.jsonl"), "utf8");
    assert.equal(kept, lines(ROLLOUT));
    const other = "11111111-5274-7b01-bd14-e9c159f563ac";
    assert.match(refused(await withSession(r, lines(ROLLOUT), other)), /another thread/);
    assert.match(
      refused(
        await withSession(r, lines([...ROLLOUT, { type: "event_msg", payload: {} }]), THREAD),
      ),
      /line 4 is not a line of a Codex rollout/,
    );
    assert.match(refused(await withSession(r, SESSION.toString(), THREAD)), /session file/);
    assert.equal(await readFile(join(taskDir, "checkpoint", "session.jsonl"), "utf8"), kept);
  });

  const GEMINI_ID = "8b88b7c0-fd71-43dc-883b-1e25a079a9fb";
  /** The start of a Gemini CLI 0.61 session file, as it writes one. */
  const CHAT = [
    {
      sessionId: GEMINI_ID,
      projectHash: "7688",
      startTime: "2026-12-02T08:44:22.782Z",
      kind: "main",
    },
    { $set: { messages: [{ id: "d049", type: "user", content: [{ text: "context" }] }] } },
    { id: "c393", timestamp: "2026-12-02T08:44:22.809Z", type: "user", content: [{ text: "hi" }] },
    { $set: { lastUpdated: "2026-12-02T08:44:22.809Z" } },
    { $rewindTo: "c393" },
  ];

  test("keeps a Gemini session of the session it names; refuses another session's and a line of another shape", async () => {
    const { receiver: r, taskDir } = await receiver("gemini");
    assert.equal((await withSession(r, lines(CHAT), GEMINI_ID)).ok, true);
    const kept = await readFile(join(taskDir, "checkpoint", "session.jsonl"), "utf8");
    assert.match(refused(await withSession(r, lines(CHAT), THREAD)), /another session/);
    assert.match(
      refused(await withSession(r, lines([...CHAT, { type: "user", text: "no id" }]), GEMINI_ID)),
      /line 6 is not a line of a Gemini session/,
    );
    assert.match(refused(await withSession(r, lines(CHAT.slice(1)), GEMINI_ID)), /metadata/);
    assert.equal(await readFile(join(taskDir, "checkpoint", "session.jsonl"), "utf8"), kept);
  });

  test("refuses any session file for an agent whose sessions are not kept", async () => {
    const { receiver: r } = await receiver("command");
    assert.match(refused(await withSession(r, SESSION.toString(), "abc")), /not kept/);
  });
});
