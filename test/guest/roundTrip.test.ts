// The runner end to end, as a plain child process on real repositories: what each kind of
// agent leaves becomes a result and a bundle the host checks and fetches.
import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { parse, parseAllDocuments } from "yaml";
import { LEFTOVERS_MESSAGE } from "../../src/guest/gitSteps.js";
import { Log } from "../../src/protocol/index.js";
import {
  fetchChanges,
  git,
  makeTask,
  runGuest,
  shellAgent,
  type TaskOptions,
  receivedOf,
} from "../support/share.js";

const TASK_ID = "01jd8x3y4z5a6b7c8d9e0f1g2h";
const PARENT_ID = "01jd8x3y4z5a6b7c8d9e0f1g2j";

async function task(t: { after: (fn: () => Promise<void>) => void }, options: TaskOptions) {
  const fixture = await makeTask(options);
  t.after(() => fixture.cleanup());
  return fixture;
}

test("an agent that commits hands back its commit, which the host checks and fetches", async (t) => {
  const fixture = await task(t, {
    settings: {
      command: shellAgent(
        'cat > prompt-seen.md && echo "made by the agent" > new.txt && git add . && git commit -qm "agent: add new.txt"',
      ),
      gitName: "Ada Lovelace",
      gitEmail: "ada@example.com",
    },
    prompt: "Add new.txt, please.\n",
  });
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 0, run.stderr);
  const { result } = receivedOf(run);
  assert.equal(result.error, undefined);
  assert.equal(result.base, fixture.base);
  assert.equal(result.agent, "command");
  assert.equal(result.agentExitCode, 0);
  assert.equal(result.leftovers, false);
  assert.equal(result.timedOut, false);
  assert.deepEqual(result.truncated, []);

  const head = await fetchChanges(run, "agent-work");
  assert.equal(head, result.head);
  assert.equal(await git(fixture.repo, "rev-parse", "agent-work"), head);
  assert.equal(await git(fixture.repo, "rev-parse", "agent-work^"), fixture.base);
  assert.equal(
    await git(fixture.repo, "log", "-1", "--format=%s|%an <%ae>|%cn", "agent-work"),
    "agent: add new.txt|Ada Lovelace <ada@example.com>|Ada Lovelace",
  );
  assert.equal(
    await git(fixture.repo, "show", "agent-work:prompt-seen.md"),
    "Add new.txt, please.",
  );
  // The transcript and the log were made in the scratch dir, never in the workspace.
  const left = await readdir(fixture.workspace);
  assert.ok(!left.includes("transcript.jsonl") && !left.includes("agent.log"), left.join(" "));
  assert.equal(await git(fixture.workspace, "status", "--porcelain", "--ignored"), "");
});

test("what the agent leaves uncommitted is committed for it, ignored files excepted", async (t) => {
  const fixture = await task(t, {
    settings: {
      command: shellAgent(
        "echo draft > draft.txt && echo more >> README.md && echo noise > debug.log && mkdir -p sub && echo x > sub/deep.txt",
      ),
    },
  });
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 0, run.stderr);
  const { result } = receivedOf(run);
  assert.equal(result.leftovers, true);
  const head = await fetchChanges(run, "leftovers");
  assert.equal(
    await git(fixture.repo, "log", "-1", "--format=%s|%an <%ae>", head),
    `${LEFTOVERS_MESSAGE}|warden <warden@localhost>`,
  );
  const files = (await git(fixture.repo, "diff", "--name-only", fixture.base, head)).split("\n");
  assert.deepEqual(files.sort(), ["README.md", "draft.txt", "sub/deep.txt"]);
});

test("an agent that changes nothing sends no bundle, and head is base", async (t) => {
  const fixture = await task(t, { settings: { command: ["true"] } });
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 0, run.stderr);
  assert.equal(receivedOf(run).result.head, fixture.base);
  assert.equal(receivedOf(run).result.leftovers, false);
  assert.equal(receivedOf(run).files["changes.bundle"], undefined);
  assert.ok(receivedOf(run).files["transcript.jsonl"], "the transcript is sent, even empty");
});

test("an agent that exits non-zero is reported, and the runner still succeeds", async (t) => {
  const fixture = await task(t, {
    settings: {
      command: shellAgent("echo 'it went wrong' >&2; echo partial > partial.txt; exit 3"),
    },
  });
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 0, run.stderr);
  const { result } = receivedOf(run);
  assert.equal(result.agentExitCode, 3);
  assert.equal(result.error, undefined);
  assert.equal(result.leftovers, true);
  const log = receivedOf(run).files["agent.log"];
  assert.ok(log);
  assert.equal(await readFile(log.path, "utf8"), "it went wrong\n");
});

test("an agent past its timeout gets SIGTERM, then SIGKILL after the grace", async (t) => {
  // The agent traps SIGTERM and carries on, so only SIGKILL ends it.
  const fixture = await task(t, {
    settings: {
      command: shellAgent(
        "trap 'echo got TERM >&2' TERM; echo started; echo half > half.txt; while :; do sleep 0.05; done",
      ),
      timeoutSeconds: 1,
    },
  });
  const started = Date.now();
  const run = await runGuest(fixture, { args: ["--kill-grace-ms", "400"] });
  const took = Date.now() - started;
  assert.equal(run.exitCode, 0, run.stderr);
  const { result } = receivedOf(run);
  assert.equal(result.timedOut, true);
  assert.equal(result.agentExitCode, 128 + 9, "killed by SIGKILL");
  assert.equal(result.leftovers, true, "what it wrote before the timeout is kept");
  const log = receivedOf(run).files["agent.log"];
  assert.ok(log);
  assert.match(await readFile(log.path, "utf8"), /got TERM/);
  assert.ok(took >= 1400, `the timeout and the grace were both waited out (${took} ms)`);
  assert.match(run.stderr, /SIGTERM[\s\S]*SIGKILL/);
});

test("the agent's last stdout line is its result when it is a JSON object", async (t) => {
  const fixture = await task(t, {
    settings: {
      command: shellAgent(
        `echo '{"type":"progress"}'; echo 'not json'; echo '{"type":"result","cost":0.25,"turns":3}'`,
      ),
    },
  });
  const run = await runGuest(fixture);
  assert.deepEqual(receivedOf(run).result.agentResult, { type: "result", cost: 0.25, turns: 3 });
  const transcript = receivedOf(run).files["transcript.jsonl"];
  assert.ok(transcript);
  assert.equal((await readFile(transcript.path, "utf8")).split("\n").length, 4);
});

test("the agent reads its task from the metadata server and its environment", async (t) => {
  const script = [
    `"$1" -e '`,
    "const base = process.env.WARDEN_METADATA_URL;",
    'const get = async (p) => { const r = await fetch(base + p); return r.status + "\\n" + await r.text(); };',
    'const fs = require("node:fs");',
    "(async () => {",
    '  fs.writeFileSync("task.yaml", (await get("/metadata/v1/task")).split("\\n").slice(1).join("\\n"));',
    '  fs.writeFileSync("workspaces.yaml", (await get("/metadata/v1/workspaces")).split("\\n").slice(1).join("\\n"));',
    '  fs.writeFileSync("ready.txt", (await get("/readyz")).split("\\n")[0]);',
    "})();'",
    "&& env | grep -E '^(WARDEN_|SECRET_|PASSED_|HOME=|TMPDIR=)' | sort > env.txt",
    "&& git add . && git commit -qm metadata",
  ].join(" ");
  const fixture = await task(t, {
    settings: {
      command: shellAgent(script, process.execPath),
      taskId: TASK_ID,
      parentTaskId: PARENT_ID,
      hop: 2,
      model: "a-model",
    },
  });
  const run = await runGuest(fixture, {
    args: ["--agent-env", "PASSED_ONE"],
    env: { ...process.env, SECRET_TOKEN: "must-not-leak", PASSED_ONE: "passed" },
  });
  assert.equal(run.exitCode, 0, run.stderr);
  const head = await fetchChanges(run, "metadata");
  const show = (file: string) => git(fixture.repo, "show", `${head}:${file}`);

  assert.deepEqual(parse(await show("task.yaml")), {
    taskId: TASK_ID,
    parentTaskId: PARENT_ID,
    hop: 2,
    agent: "command",
    model: "a-model",
    workspace: fixture.workspace,
    base: fixture.base,
    branch: "warden/task",
  });
  const workspaces = parseAllDocuments(await show("workspaces.yaml"));
  assert.ok(Array.isArray(workspaces));
  assert.deepEqual(
    workspaces.map((d) => d.toJS() as unknown),
    [{ name: "main", path: fixture.workspace, base: fixture.base, branch: "warden/task" }],
  );
  assert.equal(await show("ready.txt"), "200");

  const env = await show("env.txt");
  assert.match(env, new RegExp(`^WARDEN_TASK_ID=${TASK_ID}$`, "m"));
  assert.match(env, new RegExp(`^WARDEN_PARENT_TASK_ID=${PARENT_ID}$`, "m"));
  assert.match(env, /^WARDEN_HOP=2$/m);
  assert.match(env, /^WARDEN_METADATA_URL=http:\/\/127\.0\.0\.1:[0-9]+$/m);
  assert.match(env, /^PASSED_ONE=passed$/m);
  assert.doesNotMatch(env, /SECRET_TOKEN/);
  const tmp = /^TMPDIR=(.*)$/m.exec(env)?.[1] ?? "";
  assert.ok(tmp.startsWith(fixture.scratch), `the agent's TMPDIR ${tmp} is in the scratch dir`);
});

test("terminal escapes the agent writes to stderr never reach the host's display", async (t) => {
  const fixture = await task(t, {
    settings: {
      command: shellAgent(
        String.raw`printf '\033[31mred\033[0m \033]0;stolen title\007 \033[2J\033[Hcleared\r\nfake: warden line\n' >&2`,
      ),
    },
  });
  const run = await runGuest(fixture);
  const log = receivedOf(run).files["agent.log"];
  assert.ok(log);
  const raw = await readFile(log.path);
  assert.ok(raw.includes(0x1b), "the log really holds escapes");

  const shown: string[] = [];
  const writer = new Log((line) => shown.push(line), TASK_ID).writer("agent");
  writer.write(raw);
  writer.end();
  const display = shown.join("\n");
  assert.ok(!display.includes("\x1b") && !display.includes("\x07"), JSON.stringify(display));
  assert.match(display, /red/);
  assert.ok(shown.every((line) => /^[0-9]{2}:[0-9]{2}:[0-9]{2} agent\[01jd8x3y\]: /.test(line)));
  assert.ok(!run.stderr.includes("\x1b"), "the runner's own progress is clean too");
});

test("hooks and filters the agent configures never run in the runner's git", async (t) => {
  // The repository ships a hook; the agent turns it on, adds a clean filter for every file,
  // and leaves a file for the runner to commit. Each would leave a mark next to the workspace.
  const fixture = await task(t, {
    repo: {
      files: {
        "README.md": "# hooks\n",
        ".githooks/pre-commit": '#!/bin/sh\necho hook > "$(dirname "$0")/../../hook-ran"\n',
      },
    },
    settings: {
      command: shellAgent(
        [
          "chmod +x .githooks/pre-commit",
          "for h in commit-msg post-commit prepare-commit-msg; do cp .githooks/pre-commit .githooks/$h; done",
          "git config core.hooksPath .githooks",
          "git config filter.evil.clean 'touch ../filter-ran; cat'",
          "git config filter.evil.required true",
          "echo '* filter=evil' > .gitattributes",
          "echo left > left.txt",
        ].join(" && "),
      ),
    },
  });
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 0, run.stderr);
  assert.equal(receivedOf(run).result.leftovers, true);
  assert.equal(existsSync(join(fixture.root, "hook-ran")), false, "no hook ran");
  assert.equal(existsSync(join(fixture.root, "filter-ran")), false, "no filter ran");
  const head = await fetchChanges(run, "hooks");
  assert.equal(await git(fixture.repo, "show", `${head}:left.txt`), "left");

  // The same repository, committed by a plain git, does run them: the marks are real.
  await git(fixture.workspace, "config", "core.hooksPath", ".githooks");
  await git(fixture.workspace, "config", "filter.evil.clean", "touch ../filter-ran; cat");
  await writeFile(join(fixture.workspace, "again.txt"), "again\n");
  await git(fixture.workspace, "add", "again.txt");
  await git(fixture.workspace, "commit", "-qm", "plain git");
  assert.equal(existsSync(join(fixture.root, "hook-ran")), true, "a plain commit runs the hook");
  assert.equal(existsSync(join(fixture.root, "filter-ran")), true, "and the filter");
});

test("a branch the agent switched to becomes the task branch", async (t) => {
  const fixture = await task(t, {
    settings: {
      command: shellAgent(
        "git switch -qc elsewhere && echo x > x.txt && git add x.txt && git commit -qm elsewhere",
      ),
    },
  });
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 0, run.stderr);
  const head = await fetchChanges(run, "switched");
  assert.equal(await git(fixture.repo, "log", "-1", "--format=%s", head), "elsewhere");
});

test("an agent that rewrites the start commit's history fails the task, and nothing is sent", async (t) => {
  const fixture = await task(t, {
    settings: {
      command: shellAgent(
        "git reset -q --hard HEAD~1 && echo y > y.txt && git add y.txt && git commit -qm rewritten",
      ),
    },
  });
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 1, run.stderr);
  const { result } = receivedOf(run);
  assert.match(result.error ?? "", /history was rewritten/);
  assert.ok(result.head !== undefined && result.head !== fixture.base);
  assert.equal(receivedOf(run).files["changes.bundle"], undefined);
});

test("a bundle with HEAD alone (a detached start) works as well", async (t) => {
  const fixture = await task(t, {
    bundleRefs: "head-only",
    settings: {
      command: shellAgent("echo z > z.txt && git add z.txt && git commit -qm detached-start"),
    },
  });
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 0, run.stderr);
  const head = await fetchChanges(run, "detached");
  assert.equal(await git(fixture.repo, "rev-parse", `${head}^`), fixture.base);
});

test("an agent whose program does not exist fails the task without an exit code", async (t) => {
  const fixture = await task(t, { settings: { command: ["/nonexistent/agent", "--flag"] } });
  const run = await runGuest(fixture);
  assert.equal(run.exitCode, 1, run.stderr);
  const { result } = receivedOf(run);
  assert.match(result.error ?? "", /could not start/);
  assert.equal(result.agentExitCode, undefined);
  assert.equal(result.head, fixture.base);
  assert.equal(receivedOf(run).files["transcript.jsonl"], undefined);
});
