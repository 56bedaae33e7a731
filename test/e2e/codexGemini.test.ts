// Codex CLI and Gemini CLI as warden tasks: the real CLIs inside the real bubblewrap sandbox,
// their API calls through warden's relay (speaking OpenAI's and Google's APIs) to a scripted
// server on 127.0.0.1, their events over the channel into the task's events, and each further
// message delivered as a new run that resumes the agent's session. Only the host holds the key.
import assert from "node:assert/strict";
import { existsSync, realpathSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, test } from "node:test";
import { agentEvent, waitForEvent } from "./claudeTasks.js";
import { agentSkip, agentSuite, CODEX, GEMINI, type Step } from "./codexGeminiTasks.js";
import { git, idOf } from "./fixtures.js";

/** The directory of the package that holds `file`: where its package.json is. */
function packageOf(file: string): string {
  for (let dir = dirname(file); dir !== "/"; dir = dirname(dir)) {
    if (existsSync(join(dir, "package.json"))) return dir;
  }
  throw new Error(`${file} is in no package`);
}

for (const agentCase of [CODEX, GEMINI]) {
  const { agent, realKey } = agentCase;
  const skip = agentSkip(agentCase);

  describe(`${agent} as a warden task`, { skip }, () => {
    const suite = agentSuite(agentCase);
    const scripted = (steps: readonly Step[]) => suite.scripted(steps);

    test("a shell command that commits: the task succeeds, fetch brings the commit, and the real key stays on the host", async () => {
      const { api, warden, run } = await scripted([
        {
          kind: "shell",
          command:
            "echo hi > hi.txt && git add hi.txt && git commit -qm 'add hi' && " +
            `env | grep -c ${realKey.slice(-12)} ; env | grep -E '^(OPENAI|GEMINI)_API_KEY='`,
        },
        { kind: "text", text: "Committed hi.txt." },
      ]);
      const ran = await run("add hi.txt and commit it", ["--json"]);
      assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);
      const ended = JSON.parse(ran.stdout) as Record<string, unknown>;
      assert.equal(ended.state, "succeeded", ran.stdout);
      assert.equal(ended.summary, "Committed hi.txt.", "the answer, read from the agent's stream");
      assert.equal(ended.changes, true);
      const id = String(ended.id);

      const fetched = await warden(["fetch", id, "--json"]);
      assert.equal(fetched.code, 0, fetched.stderr);
      const branch = (JSON.parse(fetched.stdout) as { branch: string }).branch;
      assert.equal(await git(suite.ws.repo, "show", `${branch}:hi.txt`), "hi");
      assert.equal(await git(suite.ws.repo, "log", "-1", "--format=%s", branch), "add hi");
      // The agent's home (its config and sessions) lives outside the workspace.
      const files = await git(suite.ws.repo, "ls-tree", "-r", "--name-only", branch);
      assert.doesNotMatch(files, /\.codex|\.gemini|agent-home/);

      const watch = await warden(["watch", id]);
      assert.match(watch.stdout, /agent: uses \S+: .*echo hi > hi\.txt/);
      assert.match(watch.stdout, /agent: result: ok/);

      const [header, value] = agentCase.keyHeader(realKey);
      assert.ok(api.requests.length >= 2);
      for (const request of api.requests) {
        assert.equal(request.headers[header], value, `${request.method} ${request.path}`);
        assert.doesNotMatch(JSON.stringify(request.body), new RegExp(realKey));
      }
      const shown = JSON.stringify(api.userTexts()) + JSON.stringify(api.requests.at(-1)?.body);
      assert.match(shown, agentCase.placeholder, "the agent's environment held the placeholder");
      const transcript = await warden(["logs", id, "--transcript"]);
      assert.doesNotMatch(transcript.stdout, new RegExp(realKey));
    });

    test("send --await during a task: the message is a resumed run of the same session, and its answer is the reply", async () => {
      const { api, warden, run } = await scripted([
        // Gemini's shell tool refuses command substitution, so the wait is a plain sleep.
        { kind: "shell", command: "sleep 5; echo step one" },
        { kind: "text", text: "Step one is done." },
        { kind: "text", text: "Banana \u001b[1mbold\u001b[0m: here is your answer." },
      ]);
      const started = await run("do step one", ["--detach"]);
      assert.equal(started.code, 0, started.stderr);
      const id = idOf(started);
      await waitForEvent(suite.ws, id, agentEvent("tool_use"));
      const sent = await warden(["send", id, "also say banana", "--await", "--timeout", "90s"]);
      assert.equal(sent.code, 0, sent.stderr);
      // Codex hands the escape on and warden shows it as `?`; Gemini drops it itself.
      assert.match(sent.stdout, /^Banana (\?\[1m)?bold(\?\[0m)?: here is your answer\.\n$/);
      assert.ok(!sent.stdout.includes("\u001b"), "the reply, cleaned");
      const waited = await warden(["wait", id, "--timeout", "90s", "--json"]);
      assert.equal(waited.code, 0, waited.stderr);
      const watch = await warden(["watch", id]);
      assert.match(watch.stdout, /agent: tool ok: step one/, "the first run's tool really ran");

      const texts = api.userTexts();
      assert.equal(texts.length, 3);
      const resumed = texts[2] ?? [];
      assert.match(resumed.at(-1) ?? "", /also say banana/);
      assert.ok(
        resumed.some((t) => t.includes("do step one")),
        "the resumed run carries the session's first exchange",
      );
      const inbox = JSON.parse(
        await readFile(join(suite.ws.dataDir, "tasks", id, "inbox.json"), "utf8"),
      ) as { messages: { state: string; reply: string }[] };
      assert.equal(inbox.messages[0]?.state, "delivered");
      const transcript = await warden(["logs", id, "--transcript"]);
      assert.match(transcript.stdout, /Step one is done/);
      assert.match(transcript.stdout, /here is your answer/);
    });

    // Codex retries a failed request silently (its stream reports only a broken stream's
    // reconnections), so this is Gemini's alone: it reports its retries on stderr.
    if (agent === "gemini") {
      test("a retried API call shows in watch as a retry, read from the agent's stderr", async () => {
        const { run, warden } = await scripted([
          { kind: "error", status: 500, message: "overloaded for a moment" },
          { kind: "text", text: "Done after a retry." },
        ]);
        const ran = await run("do it", ["--json"]);
        assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);
        const id = String((JSON.parse(ran.stdout) as Record<string, unknown>).id);
        const watch = await warden(["watch", id]);
        assert.match(watch.stdout, /agent: API retry 1 \(HTTP 500\)/);
      });
    }

    test("a program inside the home directory is bound alone and runs", async () => {
      // The home is the directory that holds the agent's package: the package is bound, and
      // nothing else of the home is.
      const pkg = packageOf(realpathSync(agentCase.program));
      const { warden } = await scripted([{ kind: "text", text: "Ran from the home." }]);
      const ran = await warden(
        ["run", "--agent", agent, "--repo", suite.ws.repo, "--prompt", "say where", "--json"],
        { HOME: dirname(pkg) },
      );
      assert.equal(ran.code, 0, `${ran.stdout}\n${ran.stderr}`);
      assert.equal((JSON.parse(ran.stdout) as { state: string }).state, "succeeded");
    });

    test("an API error ends the task failed with the API's message, cleaned", async () => {
      const { run } = await scripted([
        { kind: "error", status: 400, message: "the scripted API \u001b[31msays no\u001b[0m" },
      ]);
      const ran = await run("do it", ["--json"]);
      assert.equal(ran.code, 1, `${ran.stdout}\n${ran.stderr}`);
      const ended = JSON.parse(ran.stdout) as Record<string, unknown>;
      assert.equal(ended.state, "failed");
      const error = String(ended.error);
      assert.match(error, /the scripted API .*says no/);
      assert.ok(!error.includes("\u001b"), "no escape reaches the terminal");
    });
  });
}
