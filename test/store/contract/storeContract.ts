// The contract every task store keeps, as tests on the TaskStore interface: the rules of the
// durable task layer (inbox limits, downward-only cancel, the wait-edge policy, deadlines, the hop
// limit, the immutable spec) and the one-executor rule of attach. A store's test file calls
// storeContract with a way to open a fresh store; nothing here knows how the store keeps tasks.
import { strict as assert } from "node:assert";
import { after, before, describe, test } from "node:test";
import type { TaskAttachment, TaskEvent, TaskStore } from "../../../src/store/index.js";
import { STORE_LIMITS } from "../../../src/store/index.js";
import { MAX_HOP } from "../../../src/protocol/index.js";
import type { SkipReason } from "../../support/skipWhen.js";

/** A test's own clock: the real time, plus however far the test moved it on. */
export class TestClock {
  #ahead = 0;
  readonly now = (): number => Date.now() + this.#ahead;
  advance(ms: number): void {
    this.#ahead += ms;
  }
}

export interface OpenedStore {
  store: TaskStore;
  close(): Promise<void>;
}

/** Opens a fresh, empty store whose clock is `clock.now`. */
export type MakeStore = (clock: TestClock) => Promise<OpenedStore>;

export const refusedWith =
  (code: string, edge?: string) =>
  (error: unknown): boolean => {
    const e = error as { code?: string; edge?: string };
    assert.equal(e.code, code, `expected ${code}, got ${String(error)}`);
    if (edge !== undefined) assert.equal(e.edge, edge);
    return true;
  };

async function collect(events: AsyncGenerator<TaskEvent>): Promise<TaskEvent[]> {
  const out: TaskEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

export function storeContract(
  name: string,
  makeStore: MakeStore,
  options: { skip?: SkipReason } = {},
): void {
  describe(`the ${name} store keeps the task store's contract`, { skip: options.skip }, () => {
    const clock = new TestClock();
    let opened: OpenedStore;
    let store: TaskStore;
    const held: TaskAttachment[] = [];
    before(async () => {
      opened = await makeStore(clock);
      store = opened.store;
    });
    after(async () => {
      for (const attachment of held) await attachment.release();
      await opened.close();
    });
    const attach = async (id: string): Promise<TaskAttachment> => {
      const attachment = await store.attach(id);
      held.push(attachment);
      return attachment;
    };
    const root = async (prompt = "a root task"): Promise<string> =>
      (await store.create({ prompt, parent: null })).id;
    const child = async (parent: string, prompt = "a child task"): Promise<string> =>
      (await store.create({ prompt, parent })).id;

    test("a task created under an id that exists is refused and keeps its spec", async () => {
      const id = await root("the first prompt");
      await assert.rejects(
        store.create({ prompt: "another prompt", parent: null }, { id }),
        refusedWith("SPEC_IMMUTABLE"),
      );
      assert.equal((await store.get(id)).spec.prompt, "the first prompt");
    });

    test("a task is resolved by a unique prefix and shown with its spec", async () => {
      const made = await store.create({
        prompt: "title line\nmore",
        parent: null,
        labels: { k: "v" },
      });
      const others = (await store.list()).map((t) => t.id).filter((id) => id !== made.id);
      let prefix = made.id.slice(0, STORE_LIMITS.minIdPrefix);
      while (others.some((id) => id.startsWith(prefix)))
        prefix = made.id.slice(0, prefix.length + 1);
      assert.equal(await store.resolve(prefix), made.id);
      await assert.rejects(store.resolve("zzzzzzzz"), refusedWith("TASK_NOT_FOUND"));
      const details = await store.get(made.id);
      assert.equal(details.state, "created");
      assert.equal(details.title, "title line");
      assert.equal(details.spec.prompt, "title line\nmore");
      assert.deepEqual(details.labels, { k: "v" });
      assert.ok((await store.list()).some((t) => t.id === made.id));
    });

    test("a child hops one past its parent, and work handed on past the hop limit is refused", async () => {
      let parent = (await store.create({ prompt: "hop", parent: null, hop: MAX_HOP - 1 })).id;
      const last = await store.create({ prompt: "last hop", parent });
      assert.equal(last.hop, MAX_HOP);
      parent = last.id;
      await assert.rejects(
        store.create({ prompt: "one too far", parent }),
        refusedWith("HOP_TOO_DEEP"),
      );
      await assert.rejects(
        store.create({ prompt: "too far", parent: null, hop: MAX_HOP + 1 }),
        refusedWith("HOP_TOO_DEEP"),
      );
    });

    test("a task without a deadline gets the default, and a child none later than its parent's", async () => {
      const parent = await store.create({ prompt: "p", parent: null, deadline: "10m" });
      const made = await store.create({ prompt: "c", parent: parent.id, deadline: "2h" });
      assert.equal(made.deadline, parent.deadline);
      const plain = await store.create({ prompt: "plain", parent: null });
      assert.equal(plain.deadline, plain.createdAt + STORE_LIMITS.defaultDeadlineMs);
      await assert.rejects(
        store.create({ prompt: "far", parent: null, deadline: "31d" }),
        refusedWith("DEADLINE_TOO_FAR"),
      );
    });

    test("attaching a task past its deadline records it failed by the deadline", async () => {
      const id = (await store.create({ prompt: "late", parent: null, deadline: "1m" })).id;
      clock.advance(2 * 60_000);
      await assert.rejects(store.attach(id), refusedWith("DEADLINE_PASSED"));
      const details = await store.get(id);
      assert.equal(details.state, "failed");
      assert.equal(details.stoppedBy, "deadline");
      await assert.rejects(store.attach(id), refusedWith("TASK_FINISHED"));
    });

    test("a task has one executor: a second attach is refused until the first lets go", async () => {
      const id = await root();
      const first = await attach(id);
      assert.equal(first.attempt, 1);
      assert.equal((await store.get(id)).state, "running");
      await assert.rejects(store.attach(id), refusedWith("ALREADY_ATTACHED"));
      await first.release();
      assert.equal((await store.get(id)).state, "interrupted");
      const second = await attach(id);
      assert.equal(second.attempt, 2);
      const record = await second.finish({ state: "succeeded", summary: "done" });
      assert.equal(record.attempts, 2);
      assert.equal((await store.get(id)).state, "succeeded");
      await assert.rejects(store.attach(id), refusedWith("TASK_FINISHED"));
    });

    test("watch yields each event after its cursor once, in order, and ends with the task", async () => {
      const id = await root();
      const attachment = await attach(id);
      const seqs = [];
      for (let i = 0; i < 5; i++) seqs.push(await attachment.appendEvent("step", { i }));
      const early = await collect(store.watch(id, { follow: false }));
      assert.deepEqual(
        early.filter((e) => e.type === "step").map((e) => e.i),
        [0, 1, 2, 3, 4],
      );
      const cursor = seqs[2] ?? 0;
      const following = collect(store.watch(id, { since: cursor }));
      await attachment.appendEvent("step", { i: 5 });
      await attachment.finish({ state: "succeeded" });
      const rest = await following;
      assert.deepEqual(
        rest.map((e) => e.type),
        ["step", "step", "step", "finished"],
      );
      assert.deepEqual(
        rest.map((e) => e.seq),
        [cursor + 1, cursor + 2, cursor + 3, cursor + 4],
      );
      assert.ok(rest.every((e) => e.seq > cursor));
    });

    test("an inbox takes 16 messages over a task's life and refuses empty, oversized and 17th ones", async () => {
      const id = await root();
      await assert.rejects(store.send(id, "", { from: null }), refusedWith("MESSAGE_EMPTY"));
      await assert.rejects(
        store.send(id, "x".repeat(STORE_LIMITS.messageMaxBytes + 1), { from: null }),
        refusedWith("MESSAGE_TOO_BIG"),
      );
      for (let i = 1; i <= STORE_LIMITS.inboxMessages; i++) {
        const sent = await store.send(id, `message ${i}`, { from: null });
        assert.equal(sent.n, i);
      }
      await assert.rejects(store.send(id, "one more", { from: null }), refusedWith("INBOX_FULL"));
      // Delivering messages frees no room: the bound is over the task's whole life.
      const attachment = await attach(id);
      const taken = await attachment.takeMessages();
      assert.equal(taken.length, STORE_LIMITS.inboxMessages);
      const delivered = await attachment.deliver(1, "r".repeat(STORE_LIMITS.summaryBytes * 2));
      assert.equal(delivered.state, "delivered");
      assert.equal(delivered.replyCut, true);
      assert.equal(Buffer.byteLength(delivered.reply ?? ""), STORE_LIMITS.summaryBytes);
      await assert.rejects(store.send(id, "still full", { from: null }), refusedWith("INBOX_FULL"));
      const states = (await store.messages(id)).map((m) => m.state);
      assert.equal(states.filter((s) => s === "delivered").length, 1);
      assert.equal(states.filter((s) => s === "in_flight").length, 15);
      await attachment.finish({ state: "succeeded" });
    });

    test("a finished or cancelling task takes no message", async () => {
      const done = await root();
      await (await attach(done)).finish({ state: "succeeded" });
      await assert.rejects(store.send(done, "late", { from: null }), refusedWith("TASK_FINISHED"));
      const running = await root();
      const attachment = await attach(running);
      await store.cancel(running, { by: null });
      await assert.rejects(
        store.send(running, "too late", { from: null }),
        refusedWith("TASK_CANCELLING"),
      );
      assert.equal(await attachment.cancelRequested(), true);
      const record = await attachment.finish({ state: "cancelled" });
      assert.equal(record.cancel?.target, running);
    });

    test("cancel goes downward only", async () => {
      const top = await root();
      const a = await child(top);
      const a1 = await child(a);
      const b = await child(top);
      const other = await root();
      await assert.rejects(
        store.cancel(a, { by: a1 }),
        refusedWith("CANCEL_NOT_ALLOWED", "ancestor"),
      );
      await assert.rejects(
        store.cancel(top, { by: a1 }),
        refusedWith("CANCEL_NOT_ALLOWED", "ancestor"),
      );
      await assert.rejects(store.cancel(b, { by: a }), refusedWith("CANCEL_NOT_ALLOWED", "peer"));
      await assert.rejects(
        store.cancel(other, { by: a }),
        refusedWith("CANCEL_NOT_ALLOWED", "other_tree"),
      );
      for (const id of [top, a, b, other])
        assert.equal((await store.get(id)).cancelRequested, false);
      const outcome = await store.cancel(a1, { by: a });
      assert.deepEqual(outcome.marked, [a1]);
      assert.equal((await store.get(a1)).state, "cancelled");
      assert.equal((await store.get(a)).cancelRequested, false);
    });

    test("cancelling a task reaches its unfinished descendants; those nobody runs end at once", async () => {
      const top = await root();
      const a = await child(top);
      const a1 = await child(a);
      const b = await child(top);
      const running = await attach(b);
      const outcome = await store.cancel(top, { by: null });
      assert.deepEqual([...outcome.marked].sort(), [top, a, a1, b].sort());
      assert.deepEqual(outcome.recorded, [a1, a]);
      assert.equal((await store.get(a1)).state, "cancelled");
      assert.equal((await store.get(b)).state, "running");
      assert.equal(await running.cancelRequested(), true);
      await assert.rejects(child(top), refusedWith("TASK_CANCELLING"));
      await running.finish({ state: "cancelled" });
      const outcomeAgain = await store.wait(top, { by: null, timeoutMs: 10_000 });
      assert.equal(outcomeAgain.kind, "finished");
      assert.equal((await store.get(top)).state, "cancelled");
    });

    test("a wait may go to a descendant or an independent root, never to itself, an ancestor or a peer", async () => {
      const top = await root();
      const a = await child(top);
      const a1 = await child(a);
      const b = await child(top);
      const other = await root();
      const otherChild = await child(other);
      await assert.rejects(
        store.wait(a, { by: a, timeoutMs: 1 }),
        refusedWith("WAIT_NOT_ALLOWED", "self"),
      );
      await assert.rejects(
        store.wait(top, { by: a1, timeoutMs: 1 }),
        refusedWith("WAIT_NOT_ALLOWED", "ancestor"),
      );
      await assert.rejects(
        store.wait(b, { by: a, timeoutMs: 1 }),
        refusedWith("WAIT_NOT_ALLOWED", "peer"),
      );
      await assert.rejects(
        store.wait(otherChild, { by: a, timeoutMs: 1 }),
        refusedWith("WAIT_NOT_ALLOWED", "not_a_root"),
      );
      assert.deepEqual(await store.wait(a1, { by: top, timeoutMs: 1 }), { kind: "timed_out" });
      assert.deepEqual(await store.wait(other, { by: a, timeoutMs: 1 }), { kind: "timed_out" });
    });

    test("a wait ends with the terminal record the executor wrote", async () => {
      const id = await root();
      const attachment = await attach(id);
      const waiting = store.wait(id, { by: null, timeoutMs: 30_000 });
      const record = await attachment.finish({
        state: "failed",
        stoppedBy: "turns",
        error: "out of turns",
      });
      assert.deepEqual(await waiting, { kind: "finished", terminal: record });
    });

    test("a person answers a prompt once, and a task may not answer its own", async () => {
      const top = await root();
      const id = await child(top);
      const attachment = await attach(id);
      const asked = await attachment.askApproval({ tool: "Bash", input: "rm -rf build" });
      assert.equal(asked.state, "pending");
      await assert.rejects(
        store.approve(id, asked.n, "allow", { by: id }),
        refusedWith("APPROVE_NOT_ALLOWED", "self"),
      );
      const answered = await store.approve(id, asked.n, "deny", { by: top, reason: "no" });
      assert.equal(answered.decision, "deny");
      await assert.rejects(
        store.approve(id, asked.n, "allow", { by: null }),
        refusedWith("APPROVAL_ANSWERED"),
      );
      await assert.rejects(
        store.approve(id, 99, "allow", { by: null }),
        refusedWith("APPROVAL_NOT_FOUND"),
      );
      assert.deepEqual(
        (await store.approvals(id)).map((r) => r.state),
        ["answered"],
      );
      for (let i = 0; i < STORE_LIMITS.approvalsPending; i++) {
        await attachment.askApproval({ tool: "Bash", input: `call ${i}` });
      }
      await assert.rejects(
        attachment.askApproval({ tool: "Bash", input: "one too many" }),
        refusedWith("APPROVALS_BUSY"),
      );
      await attachment.finish({ state: "succeeded" });
    });
  });
}
