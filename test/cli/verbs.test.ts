// The verbs a command line loads: a command line that names a verb loads that verb's file alone
// (src/cli/verbs.ts), so each file must register exactly the verbs it is listed for, a verb must
// read the same alone as beside the others, and anything else must still see the whole program.
// The built CLI is one bundle that carries its packages: a copy of dist/cli and dist/chunks with
// the package's manifest and no node_modules runs, as long as no lock is taken (fs-ext, a native
// addon, is the one package it loads from node_modules, and only when it takes or probes a lock).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { promisify } from "node:util";
import { Command } from "commander";
import { VERB_FILES, verbFilesFor } from "../../src/cli/verbs.js";
import { describeCli } from "../support/cliSuite.js";
import { cleanEnv, runCli } from "../e2e/fixtures.js";

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The names of the verbs `register` adds to an empty program, hidden ones too. */
function verbsOf(registers: ((program: Command) => void)[]): string[] {
  const program = new Command("warden");
  for (const register of registers) register(program);
  return program.commands.map((command) => command.name());
}

/** What `command --help` prints, the text commander adds before and after the options too. */
function helpOf(command: Command): string {
  let text = "";
  command.configureOutput({ writeOut: (written) => (text += written) });
  command.outputHelp();
  return text;
}

/** A program with every verb file, as `warden --help` sees it. */
async function wholeProgram(): Promise<Command> {
  const program = new Command("warden").option("--data-dir <dir>");
  for (const file of VERB_FILES) (await file.load())(program);
  return program;
}

test("each verb file registers the verbs it is listed to run, and only completion besides", async () => {
  for (const file of VERB_FILES) {
    const registered = verbsOf([await file.load()]).filter((name) => name !== "completion");
    assert.deepEqual(registered, file.runs);
  }
});

test("a command line that names a verb loads its file alone, after --data-dir too", () => {
  const ls = VERB_FILES.find((file) => file.runs.includes("ls"));
  const approve = VERB_FILES.find((file) => file.runs.includes("approvals"));
  assert.deepEqual(verbFilesFor(["ls"]), [ls]);
  assert.deepEqual(verbFilesFor(["--data-dir", "/d", "ls", "--json"]), [ls]);
  assert.deepEqual(verbFilesFor(["--data-dir=/d", "ls"]), [ls]);
  assert.deepEqual(verbFilesFor(["approvals"]), [approve]);
  assert.deepEqual(verbFilesFor(["--version"]), []);
});

test("help, completion, a misspelt verb or an unknown option load every verb file", () => {
  for (const args of [
    [],
    ["--help"],
    ["-h", "ls"],
    ["help", "ls"],
    ["completion", "bash"],
    ["shwo"],
    ["--json", "ls"],
    ["--data-dir"],
  ]) {
    assert.equal(verbFilesFor(args), VERB_FILES, args.join(" "));
  }
});

describeCli("the built warden loads one verb", (ws) => {
  test("`warden --help` lists every verb the files register, in their order", async () => {
    const result = await runCli(ws.dataDir, ["--help"]);
    assert.equal(result.code, 0);
    const commands = result.stdout.slice(result.stdout.indexOf("\nCommands:\n"));
    const listed = [...commands.matchAll(/^ {2}([a-z_-]+)\b/gm)].map((match) => match[1]);
    const program = await wholeProgram();
    const visible = program.createHelp().visibleCommands(program);
    assert.deepEqual(
      listed,
      visible.map((command) => command.name()),
    );
  });

  test("each verb's help, with only its own file loaded, is its help in the whole program", async () => {
    const program = await wholeProgram();
    for (const command of program.commands) {
      if (command.name() === "completion") continue;
      const alone = await runCli(ws.dataDir, [command.name(), "--help"]);
      assert.equal(alone.code, 0, command.name());
      assert.equal(alone.stdout, helpOf(command), command.name());
    }
  });

  test("a copy of the built CLI without node_modules prints its help and lists tasks", async () => {
    const copy = await mkdtemp(join(tmpdir(), "warden-bundle-"));
    try {
      await mkdir(join(copy, "dist"));
      await cp(join(ROOT, "dist", "cli", "main.js"), join(copy, "dist", "cli", "main.js"));
      await cp(join(ROOT, "dist", "chunks"), join(copy, "dist", "chunks"), { recursive: true });
      await cp(join(ROOT, "package.json"), join(copy, "package.json"));
      const warden = (args: string[]) =>
        execFileAsync(process.execPath, [join(copy, "dist", "cli", "main.js"), ...args], {
          cwd: copy,
          env: cleanEnv({ WARDEN_DATA_DIR: join(copy, "data") }),
        });
      assert.match((await warden(["--help"])).stdout, /^Usage: warden /);
      assert.equal((await warden(["ls", "--json"])).stdout, "[]\n");
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
