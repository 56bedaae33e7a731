// `warden ls` as a person and a script read it: newest first, cut to the width asked for with the
// title the one column cut, a totals line, ids alone with -q, and only the tasks a --limit, a
// --repo or a --state asks for; a state that does not exist is a usage error. Runs the built CLI.
import assert from "node:assert/strict";
import { symlink } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import type { TaskSummary } from "../../src/store/index.js";
import { tableLines, totalsLine } from "../../src/cli/taskTable.js";
import { describeCli } from "../support/cliSuite.js";
import {
  NO_SYSTEM,
  cleanEnv,
  idOf,
  makeRepo,
  runArgs,
  runCli,
  type CliResult,
} from "../e2e/fixtures.js";

const LONG_TITLE = `a long title ${"that goes on ".repeat(12)}and ends here`;

/** The environment of a script whose output goes to a pipe, with no width asked for. */
function noWidth(): Record<string, string> {
  const env = cleanEnv();
  delete env.COLUMNS;
  return env;
}

function ok(result: CliResult): CliResult {
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return result;
}

function lines(result: CliResult): string[] {
  return result.stdout.split("\n").filter((line) => line !== "");
}

describeCli("ls", (ws) => {
  // Made oldest first, in the suite's first test; later tests read them.
  const ids: string[] = [];
  const titles = ["oldest one", "middle one", LONG_TITLE];

  test("tasks are listed newest first, with their agent and a totals line", async () => {
    for (const title of titles) {
      ids.push(
        idOf(
          await runCli(ws.dataDir, ["create", "--repo", ws.repo, "--prompt", title, "--", "true"]),
        ),
      );
      // Ids are time-ordered to the millisecond; apart, the order is the one they were made in.
      await sleep(5);
    }
    const out = lines(ok(await runCli(ws.dataDir, ["ls"], { env: noWidth() })));
    assert.match(out[0] ?? "", /^ID\s+STATE\s+AGENT\s+ELAPSED\s+CHANGES\s+COST\s+TITLE$/);
    assert.deepEqual(
      out.slice(1, 4).map((row) => titles.find((title) => row.endsWith(` ${title}`))),
      [...titles].reverse(),
      out.join("\n"),
    );
    for (const row of out.slice(1, 4)) assert.match(row, /\screated\s+command\s+\d+s\s/);
    assert.equal(out[4], "3 tasks, 0 running");
    assert.equal(out.length, 5);
  });

  test("-q prints each full id, newest first, and nothing else", async () => {
    const quiet = ok(await runCli(ws.dataDir, ["ls", "-q"]));
    assert.equal(quiet.stdout, [...ids].reverse().join("\n") + "\n");
    const json = ok(await runCli(ws.dataDir, ["ls", "--json"]));
    const listed = JSON.parse(json.stdout) as { id: string; agent?: string }[];
    assert.deepEqual(
      listed.map((t) => t.id),
      [...ids].reverse(),
    );
    assert.ok(
      listed.every((t) => t.agent === "command"),
      json.stdout,
    );
    const both = await runCli(ws.dataDir, ["ls", "-q", "--json"]);
    assert.equal(both.code, 2, both.stdout + both.stderr);
  });

  test("--limit shows only the newest tasks and says how many there were", async () => {
    const out = lines(ok(await runCli(ws.dataDir, ["ls", "--limit", "2"], { env: noWidth() })));
    assert.equal(out.length, 4, out.join("\n"));
    assert.ok(out[1]?.endsWith(` ${LONG_TITLE}`), out.join("\n"));
    assert.ok(out[2]?.endsWith(" middle one"), out.join("\n"));
    assert.equal(out[3], "2 of 3 tasks, 0 running");
    const quiet = ok(await runCli(ws.dataDir, ["ls", "-q", "--limit", "1"]));
    assert.equal(quiet.stdout, `${ids[2]}\n`);
    for (const bad of ["0", "-1", "two", "1.5"]) {
      const refused = await runCli(ws.dataDir, ["ls", "--json", "--limit", bad]);
      assert.equal(refused.code, 2, `--limit ${bad}: ${refused.stdout}`);
      assert.equal((JSON.parse(refused.stdout) as { code: string }).code, "USAGE");
    }
  });

  test("with COLUMNS set no line is wider, and only the title is cut, with an ellipsis", async () => {
    const out = lines(ok(await runCli(ws.dataDir, ["ls"], { env: cleanEnv({ COLUMNS: "80" }) })));
    for (const line of out) assert.ok(Array.from(line).length <= 80, `${line.length}: ${line}`);
    const cut = out.find((line) => line.includes("a long title"));
    assert.match(cut ?? "", /\screated\s+command\s.*a long title that goes on .*…$/);
    assert.match(out.join("\n"), / oldest one$/m);
    // To a pipe without COLUMNS nothing is cut.
    const whole = ok(await runCli(ws.dataDir, ["ls"], { env: noWidth() }));
    assert.ok(whole.stdout.includes(LONG_TITLE), whole.stdout);
  });

  test("--repo lists only the tasks of that repository, however the path is written", async () => {
    const other = await makeRepo(join(ws.root, "other"));
    const mine = idOf(
      await runCli(ws.dataDir, ["create", "--repo", other.repo, "--prompt", "other", "--", "true"]),
    );
    await symlink(other.repo, join(ws.root, "link"));
    const viaLink = ok(await runCli(ws.dataDir, ["ls", "-q", "--repo", join(ws.root, "link")]));
    assert.equal(viaLink.stdout, `${mine}\n`);
    const first = ok(await runCli(ws.dataDir, ["ls", "-q", "--repo", ws.repo]));
    assert.equal(first.stdout, [...ids].reverse().join("\n") + "\n");
    const missing = await runCli(ws.dataDir, ["ls", "--repo", join(ws.root, "nowhere")]);
    assert.equal(missing.code, 2, missing.stderr);
  });

  test("--state takes the real states and expired; any other word is a usage error naming them", async () => {
    const late = idOf(
      await runCli(ws.dataDir, [
        "create",
        "--repo",
        ws.repo,
        "--prompt",
        "late",
        "--deadline",
        "1s",
        "--",
        "true",
      ]),
    );
    await sleep(1_200);
    const expired = ok(await runCli(ws.dataDir, ["ls", "-q", "--state", "expired"]));
    assert.equal(expired.stdout, `${late}\n`);
    const created = ok(await runCli(ws.dataDir, ["ls", "-q", "--state", "created"]));
    assert.equal(lines(created).length, 5, created.stdout);
    const running = ok(await runCli(ws.dataDir, ["ls", "--state", "running"]));
    assert.equal(running.stdout, "no tasks\n");
    const wrong = await runCli(ws.dataDir, ["ls", "--state", "runing"]);
    assert.equal(wrong.code, 2, wrong.stdout + wrong.stderr);
    assert.match(wrong.stderr, /--state runing is not a state/);
    assert.match(
      wrong.stderr,
      /created, queued, running, interrupted, suspended, succeeded, failed, cancelled, expired/,
    );
    const json = await runCli(ws.dataDir, ["ls", "--json", "--state", "runing"]);
    assert.equal((JSON.parse(json.stdout) as { code: string }).code, "USAGE");
  });

  test(
    "a finished task shows its verified commits, and the totals count it",
    { skip: NO_SYSTEM },
    async () => {
      const commit = "echo x > f && git add f && git commit -qm x";
      const run = await runCli(
        ws.dataDir,
        runArgs(ws.repo, "makes a commit", [], ["sh", "-c", commit]),
      );
      assert.equal(run.code, 0, run.stdout + run.stderr);
      const out = lines(ok(await runCli(ws.dataDir, ["ls", "--limit", "1"], { env: noWidth() })));
      assert.match(out[1] ?? "", /\ssucceeded\s+command\s+\d+s\s+1\s+makes a commit$/);
      assert.equal(out[2], "1 of 6 tasks, 0 running");
      const json = ok(await runCli(ws.dataDir, ["ls", "--json", "--limit", "1"]));
      const [task] = JSON.parse(json.stdout) as { commits?: number; changes?: boolean }[];
      assert.ok(task !== undefined, json.stdout);
      assert.equal(task.commits, 1);
      assert.equal(task.changes, true);
    },
  );
});

test("a cost the agent reported is shown in its row and summed in the totals", () => {
  const base = {
    state: "succeeded",
    createdAt: 0,
    finishedAt: 192_000,
    deadline: 3_600_000,
    parent: null,
    hop: 0,
    labels: {},
    title: "costs",
    cancelRequested: false,
    settings: { guest: { agent: "claude" } },
  } as const;
  const tasks: TaskSummary[] = [
    { ...base, id: "a", root: "a", details: { changes: false, agent: { costUSD: 1.25 } } },
    { ...base, id: "b", root: "b", details: { changes: true, commits: 2, agent: { costUSD: 2 } } },
  ];
  const [, first, second] = tableLines(tasks, new Map(), 0, undefined);
  assert.match(first ?? "", /^a\s+succeeded\s+claude\s+3m 12s\s+none\s+\$1\.25\s+costs$/);
  assert.match(second ?? "", /^b\s+succeeded\s+claude\s+3m 12s\s+2\s+\$2\.00\s+costs$/);
  assert.equal(totalsLine(tasks, 2), "2 tasks, 0 running, $3.25 spent");
});
