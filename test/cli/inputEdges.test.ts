// The edges of what the command line takes in and prints: prompts and messages that are not
// UTF-8 text, files that are not regular files (a FIFO would hang a reader forever), a results/
// that is a planted link, the sandbox's logs whose terminal controls must never reach the
// terminal, and --json output that sandbox text must not turn into terminal controls. The CLI
// runs from its source (through tsx) as a child process with a time limit.
import { strict as assert } from "node:assert";
import { spawn, type ChildProcess } from "node:child_process";
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { Tasks } from "../../src/store/index.js";
import { cleanEnv, collect, workspace, type CliResult, type Workspace } from "../e2e/fixtures.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
/** The package's own directory, where `--import tsx` resolves. */
const PACKAGE_DIR = fileURLToPath(new URL("../..", import.meta.url));
/** Far longer than a refusal takes (tsx included); a CLI still running then is hung. */
const HANG_MS = 30_000;

/** Characters --json must never print raw: C1 controls, bidi controls, U+2028/U+2029. */
const RAW_ACTIVE = /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

/** "fix it" with a byte that no UTF-8 text holds in the middle. */
const NOT_UTF8 = Buffer.from([0x66, 0x69, 0x78, 0xff, 0x20, 0x69, 0x74]);

/** Kills a child that outlives the limit, so a hang fails the test instead of stalling it. */
async function bounded(child: ChildProcess): Promise<CliResult> {
  const timer = setTimeout(() => child.kill("SIGKILL"), HANG_MS);
  try {
    return await collect(child);
  } finally {
    clearTimeout(timer);
  }
}

/** An error as the CLI prints it: one `warden:` line, then one `hint:` line. */
function assertError(result: CliResult, code: number, what: RegExp, hint: RegExp): void {
  assert.equal(result.signal, null, "the CLI did not end by itself");
  assert.equal(result.code, code, result.stdout + result.stderr);
  assert.match(result.stderr, /^warden: .+\nhint: .+\n$/);
  assert.match(result.stderr, what);
  assert.match(result.stderr.split("\n")[1] ?? "", hint);
}

describe("what the command line takes in and prints", () => {
  let ws: Workspace;
  let tasks: Tasks;
  before(async () => {
    ws = await workspace();
    tasks = await Tasks.open({ dataDir: ws.dataDir, env: {} });
  });
  after(async () => {
    await ws.cleanup();
  });

  function cli(args: string[], input: Buffer | string = ""): Promise<CliResult> {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", MAIN, "--data-dir", ws.dataDir, ...args],
      { cwd: PACKAGE_DIR, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] },
    );
    child.stdin.end(input);
    return bounded(child);
  }

  function taskCount(): number {
    return readdirSync(join(ws.dataDir, "tasks")).length;
  }

  function file(name: string, bytes: Buffer | string): string {
    const path = join(ws.root, name);
    writeFileSync(path, bytes);
    return path;
  }

  test("a prompt file that is not UTF-8 is refused with exit 2, and no task is made", async () => {
    const path = file("latin1.md", NOT_UTF8);
    const before = taskCount();
    assertError(
      await cli(["create", "--repo", ws.repo, "--prompt-file", path]),
      2,
      /the prompt is not text: it is not valid UTF-8/,
      /UTF-8/,
    );
    assert.equal(taskCount(), before);
  });

  test("a prompt on stdin that is not UTF-8, or has a NUL, is refused with exit 2", async () => {
    assertError(
      await cli(["create", "--repo", ws.repo, "--prompt-file", "-"], NOT_UTF8),
      2,
      /the prompt is not text: it is not valid UTF-8/,
      /UTF-8/,
    );
    assertError(
      await cli(["create", "--repo", ws.repo], Buffer.from("run\0this")),
      2,
      /the prompt is not text: it has a NUL character/,
      /NUL/,
    );
  });

  test("a prompt on the command line with bytes that are not UTF-8 is refused with exit 2", async () => {
    // Only a shell can put raw bytes into an argument; the script is fixed, the rest are $0..$3.
    const script =
      'exec "$0" --import tsx "$1" --data-dir "$2" create --repo "$3" --prompt "$(printf "fix \\377 it")"';
    const child = spawn("/bin/sh", ["-c", script, process.execPath, MAIN, ws.dataDir, ws.repo], {
      cwd: PACKAGE_DIR,
      env: cleanEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    assertError(await bounded(child), 2, /the prompt is not text: .*not UTF-8/, /UTF-8/);
  });

  test("a FIFO as --prompt-file is refused at once instead of waiting for a writer", async () => {
    const fifo = join(ws.root, "prompt.fifo");
    execFileSync("mkfifo", [fifo]);
    const started = Date.now();
    assertError(
      await cli(["create", "--repo", ws.repo, "--prompt-file", fifo]),
      2,
      /the prompt file .*prompt\.fifo is a FIFO, not a regular file/,
      /regular file, or - to read the prompt from stdin/,
    );
    assert.ok(Date.now() - started < HANG_MS);
  });

  test("a directory as --prompt-file is refused with exit 2", async () => {
    const dir = join(ws.root, "a-dir");
    mkdirSync(dir);
    assertError(
      await cli(["run", "--repo", ws.repo, "--prompt-file", dir]),
      2,
      /is a directory, not a regular file/,
      /regular file/,
    );
  });

  test("a message that is not UTF-8 text is refused with exit 2, from a file or stdin", async () => {
    const { id } = await tasks.create({ prompt: "listen" });
    assertError(
      await cli(["send", id, "--message-file", file("message.txt", NOT_UTF8)]),
      2,
      /the message is not text: it is not valid UTF-8/,
      /UTF-8/,
    );
    assertError(
      await cli(["send", id], Buffer.from("stop\0now")),
      2,
      /the message is not text: it has a NUL character/,
      /NUL/,
    );
    const fifo = join(ws.root, "message.fifo");
    execFileSync("mkfifo", [fifo]);
    assertError(
      await cli(["send", id, "--message-file", fifo]),
      2,
      /is a FIFO, not a regular file/,
      /regular file/,
    );
    assert.deepEqual(await tasks.messages(id), []);
    // Text that is UTF-8 goes through, bytes as they were.
    const sent = await cli(["send", id, "--message-file", file("ok.txt", "aussi ✓")]);
    assert.equal(sent.code, 0, sent.stderr);
    assert.deepEqual(
      (await tasks.messages(id)).map((m) => m.body),
      ["aussi ✓"],
    );
  });

  test("send --file takes regular files under plain names, at most 8, and refuses anything else with exit 2 before the inbox is touched", async () => {
    const { id } = await tasks.create({ prompt: "listen" });
    const fifo = join(ws.root, "sent.fifo");
    execFileSync("mkfifo", [fifo]);
    const started = Date.now();
    assertError(await cli(["send", id, "hi", "--file", fifo]), 2, /is a FIFO/, /regular file/);
    assert.ok(Date.now() - started < HANG_MS);
    assertError(
      await cli(["send", id, "hi", "--file", file("my notes.txt", "x")]),
      2,
      /"my notes.txt" cannot be a message file's name/,
      /rename or copy it first/,
    );
    const nine = Array.from({ length: 9 }, (_, i) => ["--file", file(`f${i}.txt`, "x")]).flat();
    assertError(await cli(["send", id, "hi", ...nine]), 2, /at most 8 files/, /fewer or smaller/);
    assert.deepEqual(await tasks.messages(id), []);
    const sent = await cli([
      "send",
      id,
      "see attached",
      "--file",
      file("a.txt", "alpha"),
      "--file",
      file("b.bin", NOT_UTF8),
      "--json",
    ]);
    assert.equal(sent.code, 0, sent.stderr);
    assert.deepEqual(JSON.parse(sent.stdout), {
      id,
      n: 1,
      state: "pending",
      files: [
        { name: "a.txt", bytes: 5 },
        { name: "b.bin", bytes: NOT_UTF8.length },
      ],
    });
    const plain = await cli(["send", id, "one more", "--file", file("c.txt", "c")]);
    assert.equal(plain.stdout, `sent message 2 to ${id} with 1 file\n`);
  });

  test("logs refuses a results/ that is a link and prints nothing from where it points", async () => {
    const { id } = await tasks.create({ prompt: "leave my links alone" });
    const target = join(ws.root, "elsewhere");
    mkdirSync(target);
    writeFileSync(join(target, "guest.log"), "SECRET from outside\n");
    symlinkSync(target, join(ws.dataDir, "tasks", id, "results"));
    const result = await cli(["logs", id]);
    assertError(result, 1, /results is damaged: it is a symbolic link/, /remove the link/);
    assert.doesNotMatch(result.stdout, /SECRET/);
    assert.equal(readFileSync(join(target, "guest.log"), "utf8"), "SECRET from outside\n");
  });

  test("logs --agent-log and --proxy-log print no terminal control the logs hold, and still show their text", async () => {
    const { id } = await tasks.create({ prompt: "print my logs" });
    const run = await tasks.attach(id);
    await run.finish({ state: "succeeded" });
    // The agent writes agent.log through its stderr, so it holds whatever bytes the agent chose;
    // proxy.log names what the sandbox asked for. Each line carries ESC, a CSI, an OSC ended by
    // BEL and by ST, a lone BEL, C1 controls as UTF-8 and as raw bytes that are not UTF-8.
    const hostile = (what: string): Buffer =>
      Buffer.concat([
        Buffer.from(
          `${what} \u001b[2J\u001b[31mred\u001b[0m \u001b]0;title\u0007 ` +
            `\u001b]8;;https://x.example/\u001b\\link \u0007bell \u009b31mcsi \u009d0;t\u009c\n`,
        ),
        Buffer.from([0x61, 0x9b, 0x33, 0x31, 0x6d, 0x62, 0x9d, 0x85, 0x1b, 0x0a]),
      ]);
    const results = join(ws.dataDir, "tasks", id, "results");
    mkdirSync(results, { recursive: true, mode: 0o700 });
    writeFileSync(join(results, "agent.log"), hostile("agent says"));
    writeFileSync(join(results, "proxy.log"), hostile("refuse evil.example:443"));
    for (const [flag, what] of [
      ["--agent-log", "agent says"],
      ["--proxy-log", "refuse evil.example:443"],
    ] as const) {
      for (const json of [false, true]) {
        const result = await cli(["logs", id, flag, ...(json ? ["--json"] : [])]);
        assert.equal(result.code, 0, result.stderr);
        // A raw byte that is not UTF-8 reads back as U+FFFD, so it is caught here too.
        // eslint-disable-next-line no-control-regex -- matching control characters is the point.
        assert.doesNotMatch(result.stdout, /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\ufffd]/);
        const lines = json
          ? result.stdout
              .trim()
              .split("\n")
              .map((line) => (JSON.parse(line) as { line: string }).line)
          : result.stdout.trimEnd().split("\n");
        assert.deepEqual(lines, [
          `${what} ?[2J?[31mred?[0m ?]0;title? ?]8;;https://x.example/?\\link ?bell ?31mcsi ?0;t?`,
          "a?31mb??",
        ]);
      }
    }
  });

  test("--json writes C1, bidi and line-separator characters from a task as \\u escapes", async () => {
    const hostile = "a\u0085b\u009bc\u202ed\u2066e\u2028f\u2029g\u200fh";
    const { id } = await tasks.create({ prompt: "print me", labels: { note: "x\u202ey\u2028z" } });
    const run = await tasks.attach(id);
    run.appendEvent("progress", { text: hostile });
    await run.finish({ state: "succeeded" });

    const watched = await cli(["watch", id, "--json"]);
    assert.equal(watched.code, 0, watched.stderr);
    assert.doesNotMatch(watched.stdout, RAW_ACTIVE);
    assert.match(watched.stdout, /a\\u0085b\\u009bc\\u202ed\\u2066e\\u2028f\\u2029g\\u200fh/);
    const events = watched.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; text?: string });
    assert.equal(events.find((e) => e.type === "progress")?.text, hostile);

    const shown = await cli(["show", id, "--json"]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.doesNotMatch(shown.stdout, RAW_ACTIVE);
    const view = JSON.parse(shown.stdout) as { labels: Record<string, string> };
    assert.equal(view.labels.note, "x\u202ey\u2028z");
  });
});
