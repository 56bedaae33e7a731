// A task's setup, run for real: bubblewrap, git, the built CLI. Setup reaches what its own allow
// list names and the agent does not; its variables reach setup and never the agent; a second task
// on the same lockfile starts from the cached snapshot, a lockfile change runs setup again, and a
// damaged snapshot is evicted and setup runs again; a failing or slow setup ends the task with
// stoppedBy setup; /readyz says 503 while setup runs; the config file names the setup.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  cleanEnv,
  git,
  NO_SYSTEM,
  runArgs,
  runCli,
  workspace,
  type Workspace,
} from "./fixtures.js";

interface RunOutcome {
  code: number | null;
  task: {
    id: string;
    state: string;
    stoppedBy: string | null;
    error?: string;
  };
  stderr: string;
}

/** `warden run --json` of a command agent in the workspace's repository. */
async function run(
  ws: Workspace,
  options: string[],
  command: string,
  env: Record<string, string> = {},
): Promise<RunOutcome> {
  const result = await runCli(
    ws.dataDir,
    runArgs(ws.repo, "set up, then work", ["--json", ...options], ["sh", "-c", command]),
    {
      env: cleanEnv(env),
    },
  );
  const line = result.stdout.trim().split("\n").at(-1) ?? "";
  let task: RunOutcome["task"];
  try {
    task = JSON.parse(line) as RunOutcome["task"];
  } catch {
    throw new Error(`no JSON from warden run: ${result.stdout}${result.stderr}`);
  }
  return { code: result.code, task, stderr: result.stderr };
}

/** The types of a task's events, in order. */
function eventTypes(ws: Workspace, id: string): string[] {
  return readFileSync(join(ws.dataDir, "tasks", id, "events.jsonl"), "utf8")
    .trim()
    .split("\n")
    .map((line) => (JSON.parse(line) as { type: string }).type);
}

/** Commits `files` in the workspace's repository. */
async function commit(
  ws: Workspace,
  files: Record<string, string>,
  message: string,
): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(ws.repo, path, ".."), { recursive: true });
    writeFileSync(join(ws.repo, path), text);
  }
  await git(ws.repo, "add", "-A");
  await git(ws.repo, "commit", "-qm", message);
}

/** A loopback HTTP server that serves one package file: the registry stub. */
async function registryStub(): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    if (request.url === "/pkg.tgz") {
      response.writeHead(200, { "content-type": "application/octet-stream" });
      response.end("package-bytes\n");
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe("setup", { skip: NO_SYSTEM }, () => {
  let ws: Workspace;
  let registry: { server: Server; port: number };

  before(async () => {
    ws = await workspace();
    await commit(
      ws,
      {
        ".gitignore": "node_modules/\n",
        "package-lock.json": '{"lockfileVersion": 3}\n',
        "obsolete.txt": "setup removes this\n",
      },
      "a project with a lockfile",
    );
    registry = await registryStub();
  });

  after(async () => {
    registry.server.close();
    await ws.cleanup();
  });

  test("setup reaches a host on its own allow list and the agent is refused it", async () => {
    const url = `http://127.0.0.1:${registry.port}/pkg.tgz`;
    const fetchIt = `curl -fsS --noproxy "" --proxytunnel --proxy "$HTTPS_PROXY" ${url}`;
    const outcome = await run(
      ws,
      [
        "--setup",
        `mkdir -p node_modules/pkg && ${fetchIt} -o node_modules/pkg/pkg.tgz`,
        "--setup-allow",
        `127.0.0.1:${registry.port}`,
        "--setup-key",
        "nothing-matches-this",
      ],
      // The agent sees what setup fetched, and cannot fetch it itself.
      `grep -q package-bytes node_modules/pkg/pkg.tgz && ! ${fetchIt} -o /dev/null`,
    );
    assert.equal(outcome.task.state, "succeeded", outcome.stderr);
    const proxyLog = readFileSync(
      join(ws.dataDir, "tasks", outcome.task.id, "results", "proxy.log"),
      "utf8",
    );
    assert.match(proxyLog, /allow.*127\.0\.0\.1/);
    assert.match(proxyLog, /refuse.*127\.0\.0\.1/);
  });

  test("a setup's variable reaches setup and never the agent: not its environment, its files or /proc", async () => {
    const secret = "s3cr3t-value-7d1f";
    // Neither command holds the secret itself: both are in task.json, which the agent may read.
    const digest = createHash("sha256").update(secret).digest("hex");
    const encoded = Buffer.from(secret).toString("base64");
    const outcome = await run(
      ws,
      [
        "--setup",
        // Setup sees it, and leaves processes behind that hold it in their environment.
        `test "$(printf %s "$SETUP_TOKEN" | sha256sum | cut -d' ' -f1)" = ${digest} && (setsid sleep 300 &) && (sleep 300 &) && echo seen`,
        "--setup-env",
        "SETUP_TOKEN",
        "--setup-key",
        "nothing-matches-this",
      ],
      [
        `echo ${encoded} | base64 -d > /tmp/pattern`,
        `test -z "$SETUP_TOKEN"`,
        `! env | grep -qF -f /tmp/pattern`,
        `! grep -rqsF --exclude=pattern -f /tmp/pattern . "$HOME" /tmp`,
        `! cat /proc/[0-9]*/environ 2>/dev/null | grep -qF -f /tmp/pattern`,
        `! cat /proc/[0-9]*/cmdline 2>/dev/null | grep -qF -f /tmp/pattern`,
        `rm /tmp/pattern`,
      ].join(" && "),
      { SETUP_TOKEN: secret },
    );
    assert.equal(outcome.task.state, "succeeded", outcome.stderr);
    // Nor is it anywhere in the task's share or results on the host.
    const taskDir = join(ws.dataDir, "tasks", outcome.task.id);
    for (const file of readdirSync(join(taskDir, "results"))) {
      assert.doesNotMatch(readFileSync(join(taskDir, "results", file), "utf8"), new RegExp(secret));
    }
    assert.doesNotMatch(readFileSync(join(taskDir, "spec.json"), "utf8"), new RegExp(secret));
    assert.match(readFileSync(join(taskDir, "results", "setup.log"), "utf8"), /seen/);
  });

  test("a second task on the same lockfile starts from the cached setup, and a lockfile change runs it again", async () => {
    const setup = [
      "--setup",
      "mkdir -p node_modules/dep && echo built > node_modules/dep/index.js && rm obsolete.txt && echo ran",
    ];
    const check = "test -f node_modules/dep/index.js && test ! -e obsolete.txt";
    const first = await run(ws, setup, check);
    assert.equal(first.task.state, "succeeded", first.stderr);
    assert.ok(eventTypes(ws, first.task.id).includes("setup_started"));
    assert.ok(eventTypes(ws, first.task.id).includes("setup_cache_stored"));

    const second = await run(ws, setup, check);
    assert.equal(second.task.state, "succeeded", second.stderr);
    const types = eventTypes(ws, second.task.id);
    assert.ok(types.includes("setup_cached"), types.join(" "));
    assert.ok(!types.includes("setup_started"), "setup ran again");
    const shown = await runCli(ws.dataDir, ["show", second.task.id, "--json"]);
    const view = JSON.parse(shown.stdout) as { setup: { fromCache: boolean; commands: string[] } };
    assert.equal(view.setup.fromCache, true);
    assert.deepEqual(view.setup.commands, [setup[1]]);
    const text = await runCli(ws.dataDir, ["show", second.task.id]);
    assert.match(text.stdout, /setup: +1 command, from the cache/);

    await commit(
      ws,
      { "package-lock.json": '{"lockfileVersion": 3, "changed": true}\n' },
      "a new lock",
    );
    const third = await run(ws, setup, check);
    assert.equal(third.task.state, "succeeded", third.stderr);
    assert.ok(
      eventTypes(ws, third.task.id).includes("setup_started"),
      "a lockfile change ran setup",
    );
  });

  test("a damaged cached snapshot is evicted and setup runs again", async () => {
    const setup = [
      "--setup",
      "mkdir -p node_modules/d && echo one > node_modules/d/f",
      "--setup-key",
      "obsolete.txt",
    ];
    const check = "grep -q one node_modules/d/f";
    const first = await run(ws, setup, check);
    assert.equal(first.task.state, "succeeded", first.stderr);
    const cache = join(ws.dataDir, "setup-cache");
    const stored = readdirSync(cache).filter((name) => /^[0-9a-f]{64}$/.test(name));
    assert.ok(stored.length > 0);
    for (const key of stored) {
      const tar = join(cache, key, "snapshot.tar");
      const bytes = readFileSync(tar);
      // One byte of a file's contents changed: a tar that still reads, but not what was kept.
      const at = bytes.indexOf("one\n");
      if (at >= 0) bytes[at] = "t".charCodeAt(0);
      writeFileSync(tar, bytes);
    }
    const second = await run(ws, setup, check);
    assert.equal(second.task.state, "succeeded", second.stderr);
    const types = eventTypes(ws, second.task.id);
    assert.ok(types.includes("setup_cache_evicted"), types.join(" "));
    assert.ok(types.includes("setup_started"), types.join(" "));
  });

  test("a failing setup ends the task failed with the setup's error and stoppedBy setup", async () => {
    const outcome = await run(
      ws,
      [
        "--setup",
        "echo first",
        "--setup",
        "echo the-last-words >&2; exit 3",
        "--setup",
        "echo never",
      ],
      "touch agent-ran",
    );
    assert.equal(outcome.code, 1);
    assert.equal(outcome.task.state, "failed");
    assert.equal(outcome.task.stoppedBy, "setup");
    assert.match(outcome.task.error ?? "", /setup command 2 of 3 .* exited with code 3/);
    assert.match(outcome.task.error ?? "", /the-last-words/);
    const types = eventTypes(ws, outcome.task.id);
    assert.ok(!types.some((type) => type === "agent"), "the agent ran");
    const log = readFileSync(
      join(ws.dataDir, "tasks", outcome.task.id, "results", "setup.log"),
      "utf8",
    );
    assert.match(log, /first/);
    assert.doesNotMatch(log, /never/);
    const shown = await runCli(ws.dataDir, ["logs", outcome.task.id, "--setup-log"]);
    assert.match(shown.stdout, /the-last-words/);
  });

  test("a setup past its time limit is stopped and ends the task with stoppedBy setup", async () => {
    const started = Date.now();
    const outcome = await run(
      ws,
      ["--setup", "echo waiting; sleep 60", "--setup-timeout", "2"],
      "true",
    );
    assert.ok(Date.now() - started < 40_000, "the setup was not stopped at its limit");
    assert.equal(outcome.task.state, "failed");
    assert.equal(outcome.task.stoppedBy, "setup");
    assert.match(outcome.task.error ?? "", /time limit of 2 s/);
  });

  test("/readyz answers 503 while setup runs and 200 once it has finished", async () => {
    const probe = (file: string) =>
      `node -e 'fetch(process.env.WARDEN_METADATA_URL + "/readyz").then(r => require("fs").writeFileSync("${file}", String(r.status)))'`;
    const outcome = await run(
      ws,
      [
        "--setup",
        `${probe("/tmp/during")} && cp /tmp/during during-setup.txt`,
        "--setup-key",
        "none",
      ],
      `${probe("/tmp/after")} && test "$(cat during-setup.txt)" = 503 && test "$(cat /tmp/after)" = 200`,
    );
    assert.equal(outcome.task.state, "succeeded", outcome.stderr);
  });

  test("the repository's config file names the setup, a flag overrides it, and it may not widen setup's network", async () => {
    await commit(
      ws,
      {
        ".warden/config.yaml": [
          "setup:",
          "  - mkdir -p node_modules/cfg && echo from-config > node_modules/cfg/x",
          "setupTimeout: 5m",
          "setupKey: [none]",
          "setupAllow: [example.com]",
          "setupEnv: [HOME]",
          "",
        ].join("\n"),
      },
      "setup in the repository",
    );
    const fromFile = await run(ws, [], "grep -q from-config node_modules/cfg/x");
    assert.equal(fromFile.task.state, "succeeded", fromFile.stderr);
    assert.match(fromFile.stderr, /sets setupAllow, which only your own config may set; ignored/);
    assert.match(fromFile.stderr, /sets setupEnv, which only your own config may set; ignored/);
    const spec = JSON.parse(
      readFileSync(join(ws.dataDir, "tasks", fromFile.task.id, "spec.json"), "utf8"),
    ) as {
      settings: { setup: { timeoutSeconds: number; allow: string[]; envNames: string[] } };
    };
    assert.equal(spec.settings.setup.timeoutSeconds, 300);
    assert.deepEqual(spec.settings.setup.allow, []);
    assert.deepEqual(spec.settings.setup.envNames, []);

    const flagged = await run(
      ws,
      ["--setup", "echo flag > flag.txt"],
      "test -f flag.txt && test ! -e node_modules/cfg/x",
    );
    assert.equal(flagged.task.state, "succeeded", flagged.stderr);
  });
});
