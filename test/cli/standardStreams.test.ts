// The command's stdout and stderr (src/cli/standardStreams.ts): written with write(2) straight to
// the descriptors, they must behave as Node's streams did for every reader: a reader that stops
// early is no error, a descriptor that would block loses and reorders nothing, and a terminal is
// told from a pipe, a file and /dev/null. Each case runs in a child process of its own, with its
// descriptors as the case needs them.
import { strict as assert } from "node:assert";
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { CLI_MAIN, cleanEnv } from "../e2e/fixtures.js";
import { skipWhen } from "../support/skipWhen.js";

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const STREAMS = pathToFileURL(join(ROOT, "src", "cli", "standardStreams.ts")).href;

/** `node` running `code`, an ES module that has `standardOut` and `standardError` imported. */
function nodeWith(code: string): string[] {
  const script = `import { standardOut, standardError } from ${JSON.stringify(STREAMS)};\n${code}`;
  return ["--import", "tsx", "--input-type=module", "-e", script];
}

const NOT_BUILT = skipWhen(existsSync(CLI_MAIN) ? false : "warden is not built: npm run build");

test(
  "a reader that closes the pipe before warden writes ends the command with its own status and no error",
  { skip: NOT_BUILT },
  async () => {
    for (const args of [["--help"], ["ls", "--help"], ["logs", "--help"]]) {
      const child = spawn(process.execPath, [CLI_MAIN, ...args], {
        env: cleanEnv({}),
        stdio: ["ignore", "pipe", "pipe"],
      });
      // The reader is gone before the command starts writing: its first write meets EPIPE.
      child.stdout.destroy();
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => child.once("close", resolve));
      assert.equal(code, 0, `${args.join(" ")}: ${stderr}`);
      assert.equal(stderr, "", args.join(" "));
    }
  },
);

test("a descriptor left non-blocking with its pipe full loses no byte and keeps their order", async () => {
  // Node's own stream for fd 1 sets the pipe non-blocking, as another process sharing it could;
  // the reader sleeps first, so the pipe fills and write(2) meets EAGAIN part way through.
  const lines = 20_000;
  const writer = shellLine(
    nodeWith(`
      process.stdout;
      for (let i = 0; i < ${lines}; i++) standardOut.write(\`line \${i} \${"x".repeat(40)}\\n\`);
      standardError.write("done\\n");
    `),
  );
  const { stderr, got } = await throughSlowReader(writer);
  assert.equal(stderr, "done\nstatus 0\n");
  assert.equal(got.length, lines + 1);
  got.slice(0, lines).forEach((line, i) => {
    if (line !== `line ${i} ${"x".repeat(40)}`) assert.fail(`line ${i} reads ${line.slice(0, 60)}`);
  });
});

test("a command that ends itself once its output is written loses no byte to a slow reader, and keeps its exit code", async () => {
  // As the task verbs end (exitWhenWritten): the pipe is full and non-blocking, so part of the
  // output waits in Node's stream when the command is done; the process must not end before it.
  const lines = 20_000;
  const streams = JSON.stringify(STREAMS);
  const writer = shellLine([
    "--import",
    "tsx",
    "--input-type=module",
    "-e",
    `import { exitWhenWritten, standardOut } from ${streams};
     process.stdout;
     for (let i = 0; i < ${lines}; i++) standardOut.write(\`line \${i} \${"x".repeat(40)}\\n\`);
     process.exitCode = 3;
     await exitWhenWritten();`,
  ]);
  const { stderr, got } = await throughSlowReader(writer);
  assert.equal(stderr, "status 3\n");
  assert.equal(got.length, lines + 1, "every line arrived");
  assert.equal(got.at(-2), `line ${lines - 1} ${"x".repeat(40)}`);
});

/**
 * Runs the shell line `writer` into a reader that sleeps 1.5 s before it reads, so the pipe fills;
 * gives what the writer's stderr and exit status said and the lines the reader got.
 */
async function throughSlowReader(writer: string): Promise<{ stderr: string; got: string[] }> {
  const dir = await mkdtemp(join(tmpdir(), "warden-standard-out-"));
  try {
    const out = join(dir, "out");
    const { stderr } = await execFileAsync("bash", [
      "-c",
      `${writer} | (sleep 1.5; cat > '${out}'); echo "status \${PIPESTATUS[0]}" >&2`,
    ]);
    return { stderr, got: (await readFile(out, "utf8")).split("\n") };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** `node` with `args`, as one line for a shell. */
function shellLine(args: string[]): string {
  return [process.execPath, ...args].map((word) => `'${word.replaceAll("'", `'\\''`)}'`).join(" ");
}

/** A child that reports `standardOut.isTTY` and `columns`, as one line for sh -c. */
function reporter(to: "standardOut" | "standardError"): string {
  const report = `${to}.write(JSON.stringify({ isTTY: standardOut.isTTY, columns: standardOut.columns }) + "\\n");`;
  return shellLine(nodeWith(report));
}

/** What the child says of its fd 1 when `redirect` (shell syntax) sends it somewhere. */
async function terminalOf(redirect: string): Promise<{ isTTY: boolean; columns?: number }> {
  const { stderr } = await execFileAsync("sh", ["-c", `${reporter("standardError")} ${redirect}`], {
    cwd: ROOT,
  });
  return JSON.parse(stderr) as { isTTY: boolean; columns?: number };
}

test("a pipe, a file and /dev/null are no terminal, and have no width", async () => {
  const dir = await mkdtemp(join(tmpdir(), "warden-standard-out-"));
  try {
    assert.deepEqual(await terminalOf("| cat"), { isTTY: false });
    assert.deepEqual(await terminalOf("> /dev/null"), { isTTY: false });
    assert.deepEqual(await terminalOf(`> ${join(dir, "out")}`), { isTTY: false });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

const NO_SCRIPT = skipWhen(
  existsSync("/usr/bin/script") ? false : "script(1) is not installed: apt-get install util-linux",
);

test("a terminal is one, with its width", { skip: NO_SCRIPT }, async () => {
  // script(1) runs the child on a pseudo-terminal of its own, sized here.
  const { stdout } = await execFileAsync(
    "script",
    ["-qec", `stty cols 123; ${reporter("standardOut")}`, "/dev/null"],
    { cwd: ROOT },
  );
  const line = stdout.split(/\r?\n/).find((text) => text.startsWith("{"));
  assert.ok(line !== undefined, stdout);
  assert.deepEqual(JSON.parse(line), { isTTY: true, columns: 123 });
});
