// The verbs a command line loads: a command line that names a verb loads that verb's file alone
// (src/cli/verbs.ts), so each file must register exactly the verbs it is listed for, a verb must
// read the same alone as beside the others, and anything else must still see the whole program.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Command } from "commander";
import { VERB_FILES, verbFilesFor } from "../../src/cli/verbs.js";
import { describeCli } from "../support/cliSuite.js";
import { runCli } from "../e2e/fixtures.js";

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
});
