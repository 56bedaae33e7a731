// A task whose agent waits for a person's answer is marked where a person looks: `ls` says
// running(approval), `show` lists the waiting prompts with how to answer them, and `warden
// approvals` without an id lists every waiting prompt across tasks. The test plays the executor
// itself with the store, so no sandbox is needed; every text it plants is hostile.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { Tasks, type Attachment } from "../../src/store/index.js";
import { describeCli } from "../support/cliSuite.js";
import { runCli } from "../e2e/fixtures.js";

describeCli("prompts that wait for a person", (ws) => {
  let tasks: Tasks;
  before(async () => {
    tasks = await Tasks.open({ dataDir: ws.dataDir, env: {} });
  });

  async function running(prompt: string): Promise<{ id: string; run: Attachment }> {
    const { id } = await tasks.create({ prompt });
    return { id, run: await tasks.attach(id) };
  }

  test("ls marks a running task that waits for an approval, and the totals say how many", async () => {
    const quiet = await running("quiet one");
    const asking = await running("asking one");
    await asking.run.askApproval({ tool: "Bash", input: "make deploy" });
    const ls = await runCli(ws.dataDir, ["ls"]);
    assert.equal(ls.code, 0, ls.stderr);
    assert.match(ls.stdout, /^\S+\s+running\(approval\)\s.*asking one$/m);
    assert.match(ls.stdout, /^\S+\s+running\s.*quiet one$/m);
    assert.match(ls.stdout, /, 2 running \(1 waiting for approval\)/);
    const json = JSON.parse((await runCli(ws.dataDir, ["ls", "--json"])).stdout) as {
      id: string;
      approvalsPending: number;
    }[];
    assert.equal(json.find((t) => t.id === asking.id)?.approvalsPending, 1);
    assert.equal(json.find((t) => t.id === quiet.id)?.approvalsPending, 0);
    await asking.run.awaitApproval(1, { timeoutMs: 1 });
    const after = await runCli(ws.dataDir, ["ls"]);
    assert.doesNotMatch(after.stdout, /\(approval\)/, "an answered prompt no longer marks it");
    await quiet.run.finish({ state: "succeeded" });
    await asking.run.finish({ state: "succeeded" });
  });

  test("show lists the waiting prompts, cleaned, with their age and how to answer", async () => {
    const { id, run } = await running("show me");
    await run.askApproval({ tool: "Bash\u001b[2J", input: "rm -rf /\u202e" });
    await run.askApproval({ tool: "Write", input: "/etc/hosts" });
    await run.awaitApproval(2, { timeoutMs: 1 });
    const show = await runCli(ws.dataDir, ["show", id]);
    assert.equal(show.code, 0, show.stderr);
    const short = await tasks.shortId(id);
    assert.match(show.stdout, /^state: +running \(waiting for approval\)$/m);
    assert.match(
      show.stdout,
      new RegExp(
        `^waiting for an answer:\\n  1  \\d+s  Bash\\?\\[2J: rm -rf /\\?\\n  answer: warden approve ${short} N allow\\|deny$`,
        "m",
      ),
    );
    assert.doesNotMatch(show.stdout, /Write: \/etc\/hosts/, "an answered prompt is not listed");
    await run.finish({ state: "succeeded" });
    const ended = await runCli(ws.dataDir, ["show", id]);
    assert.doesNotMatch(ended.stdout, /waiting for an answer/);
  });

  test("approvals without an id lists every waiting prompt across tasks, oldest first", async () => {
    const first = await running("first");
    const second = await running("second");
    await first.run.askApproval({ tool: "Bash", input: "npm publish" });
    await second.run.askApproval({ tool: "WebFetch\u0007", input: "https://example.com" });
    await second.run.askApproval({ tool: "Edit", input: "src/a.ts" });
    await second.run.awaitApproval(2, { timeoutMs: 1 });

    const list = await runCli(ws.dataDir, ["approvals"]);
    assert.equal(list.code, 0, list.stderr);
    const lines = list.stdout.trimEnd().split("\n");
    const [a, b] = [await tasks.shortId(first.id), await tasks.shortId(second.id)];
    assert.match(lines[0] ?? "", /^TASK\s+N\s+AGE\s+REQUEST$/);
    assert.match(lines[1] ?? "", new RegExp(`^${a}\\s+1\\s+\\d+s\\s+Bash: npm publish$`));
    assert.match(
      lines[2] ?? "",
      new RegExp(`^${b}\\s+1\\s+\\d+s\\s+WebFetch\\?: https://example.com$`),
    );
    assert.match(lines[3] ?? "", /^answer: warden approve TASK N allow\|deny/);
    assert.equal(lines.length, 4, "the answered prompt is not listed");

    const json = await runCli(ws.dataDir, ["approvals", "--json"]);
    const requests = JSON.parse(json.stdout) as Record<string, unknown>[];
    assert.deepEqual(
      requests.map((r) => [r.id, r.n, r.tool]),
      [
        [first.id, 1, "Bash"],
        [second.id, 1, "WebFetch\u0007"],
      ],
    );
    assert.match(String(requests[0]?.askedAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const one = JSON.parse(
      (await runCli(ws.dataDir, ["approvals", second.id, "--json"])).stdout,
    ) as Record<string, unknown>[];
    assert.match(String(one[1]?.answeredAt), /Z$/, "a task's requests carry ISO times too");

    await first.run.finish({ state: "succeeded" });
    await second.run.finish({ state: "succeeded" });
    const none = await runCli(ws.dataDir, ["approvals"]);
    assert.equal(none.stdout, "no approval requests wait for an answer\n");
  });
});
