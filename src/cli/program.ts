// The `warden` program. Each verb lives in a file of its own beside this one; this file puts
// those of a program (the whole one, verbs.ts, or the quick one, quickVerbs.ts) together and
// turns every error into `warden: <what>` / `hint: <what to do>` (with --json, one JSON object
// with the error's code) and an exit code (exitCodes.ts).
import { createRequire } from "node:module";
import { Command, CommanderError } from "commander";
import { UsageError } from "../protocol/index.js";
import { colourWanted } from "./colour.js";
import { EXIT, exitForError } from "./exitCodes.js";
import { CLI_LIMITS } from "./limits.js";
import { printError } from "./printError.js";
import { programKind } from "./firstWord.js";
import { exitWhenWritten, standardError, standardOut } from "./standardStreams.js";
import { loadVerbs, type RegisterVerbs, type VerbFile } from "./verbFile.js";

const require = createRequire(import.meta.url);
const { version } = require("../../package.json") as { version: string };

/**
 * Whether the verb was given --json. Only the verb being run parses its options, and commander
 * has parsed all of them before it refuses the command line.
 */
function wantsJson(command: Command): boolean {
  return command.opts<{ json?: boolean }>().json === true;
}

/**
 * Whether a command line commander refused before it found a verb asked for --json: no verb
 * parsed it, so the words themselves are read (up to a `--`, after which words are the agent's).
 */
function argvWantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf("--");
  return (end === -1 ? argv : argv.slice(0, end)).includes("--json");
}

/**
 * commander's own messages (`error: unknown option '--x'`) in warden's form, with a hint, on one
 * line: its suggestion (`(Did you mean show?)`, on a line of its own) becomes a sentence.
 */
function usageOutput(command: Command): (text: string, write: (text: string) => void) => void {
  const help = command.parent === null ? "warden --help" : `warden ${command.name()} --help`;
  return (text) => {
    const what = text
      .trim()
      .replace(/^error: /, "")
      .replace(/\s*\n\((Did you mean [^)]*)\)$/, ". $1");
    const json = wantsJson(command) || (command.parent === null && argvWantsJson(process.argv));
    printError(new UsageError(what, { hint: `see \`${help}\`` }), json);
  };
}

/** The program with the verbs of `verbs` (verbFile.ts loads only those a command line needs). */
function buildProgram(verbs: readonly RegisterVerbs[]): Command {
  const program = new Command("warden")
    .description(
      "Run AI coding agents as unattended, durable tasks in isolated sandboxes, " +
        "and get their work back as git branches the host has verified.",
    )
    .version(version, "-V, --version", "print warden's version")
    .option(
      "--data-dir <dir>",
      "where tasks are kept (default $WARDEN_DATA_DIR, else $XDG_DATA_HOME/warden, else ~/.local/share/warden)",
    )
    .option(
      "--store <url>",
      "a fleet's store, nats://HOST:PORT, or `local` for this machine's (default $WARDEN_STORE, else store: in your config, else local)",
    )
    .exitOverride()
    .addHelpText(
      "after",
      "\nExit status: 0 succeeded or accepted, 1 failed, cancelled or an error, 2 a usage error\n" +
        "or bad reference, 3 a bound tripped (deadline, budget, turns, time limit) or a wait\n" +
        "timed out.\n",
    );
  program.configureOutput({
    // Help and --version go out as every other word of warden's does (standardStreams.ts).
    writeOut: (text) => {
      standardOut.write(text);
    },
    writeErr: (text) => {
      standardError.write(text);
    },
    getOutHelpWidth: () => standardOut.columns ?? CLI_LIMITS.helpColumns,
    getErrHelpWidth: () => standardError.columns ?? CLI_LIMITS.helpColumns,
    getOutHasColors: () => colourWanted(standardOut, process.env),
    getErrHasColors: () => colourWanted(standardError, process.env),
    outputError: usageOutput(program),
  });
  for (const register of verbs) register(program);
  for (const command of program.commands) {
    command.configureOutput({ outputError: usageOutput(command) });
  }
  return program;
}

/** Runs the command line of this process with the verb files `files`. */
export async function runProgram(files: readonly VerbFile[]): Promise<void> {
  const program = buildProgram(await loadVerbs(process.argv.slice(2), files));
  try {
    await program.parseAsync(process.argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version end with code 0; anything else commander refuses is a usage error,
      // already printed through usageOutput.
      process.exitCode = error.exitCode === 0 ? EXIT.ok : EXIT.usage;
      return;
    }
    printError(error, program.commands.some(wantsJson));
    process.exitCode = exitForError(error);
  }
  // A verb that runs a task has awaited everything it started (the task's end is recorded, its
  // directories are removed or handed to a detached remover) by the time it returns, and leaves
  // a large heap behind: it ends the process itself, without Node's teardown of that heap.
  if (programKind(process.argv.slice(2)) === "task") await exitWhenWritten();
}
