// The verbs a command line loads: a command line that names a verb loads that verb's file alone
// (src/cli/verbFile.ts), so each file must register exactly the verbs it is listed for, a verb
// must read the same alone as beside the others, and anything else must still see the whole
// program. `ls`, `show`, `send` and --version run from the quick program (src/cli/quickVerbs.ts),
// which must hold exactly the files of the words the command sends to it (src/cli/firstWord.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Command } from "commander";
import { programKind, QUICK_VERBS } from "../../src/cli/firstWord.js";
import { QUICK_VERB_FILES } from "../../src/cli/quickVerbs.js";
import { verbFilesFor, type VerbFile } from "../../src/cli/verbFile.js";
import { VERB_FILES } from "../../src/cli/verbs.js";
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

const filesFor = (args: string[]): readonly VerbFile[] => verbFilesFor(args, VERB_FILES);

test("a command line that names a verb loads its file alone, after --data-dir too", () => {
  const ls = VERB_FILES.find((file) => file.runs.includes("ls"));
  const approve = VERB_FILES.find((file) => file.runs.includes("approvals"));
  assert.deepEqual(filesFor(["ls"]), [ls]);
  assert.deepEqual(filesFor(["--data-dir", "/d", "ls", "--json"]), [ls]);
  assert.deepEqual(filesFor(["--data-dir=/d", "ls"]), [ls]);
  assert.deepEqual(filesFor(["approvals"]), [approve]);
  assert.deepEqual(filesFor(["--version"]), []);
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
    assert.equal(filesFor(args), VERB_FILES, args.join(" "));
  }
});

test("the quick program holds the files of the quick verbs, the very ones of the whole program", () => {
  assert.deepEqual(
    QUICK_VERB_FILES.flatMap((file) => file.runs),
    QUICK_VERBS,
  );
  for (const file of QUICK_VERB_FILES) assert.ok(VERB_FILES.includes(file), file.runs.join(" "));
});

test("ls, show, send and --version run the quick program, the task verbs the task's cache", () => {
  const kinds = (lines: string[][]): string[] => lines.map((args) => programKind(args));
  assert.deepEqual(
    kinds([
      ["ls"],
      ["--data-dir", "/d", "show", "x"],
      ["--store=local", "send"],
      ["-V"],
      ["--version"],
    ]),
    ["quick", "quick", "quick", "quick", "quick"],
  );
  assert.deepEqual(
    kinds([["run"], ["--data-dir=/d", "start"], ["rerun"], ["continue"], ["worker"]]),
    ["task", "task", "task", "task", "task"],
  );
  // Help, a misspelt verb or an option before the verb need every verb: the whole program.
  assert.deepEqual(
    kinds([[], ["--help"], ["logs"], ["sohw"], ["--json", "ls"], ["help", "ls"], ["completion"]]),
    ["whole", "whole", "whole", "whole", "whole", "whole", "whole"],
  );
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
