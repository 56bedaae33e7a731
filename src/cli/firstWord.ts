// The first word of a `warden` command line, which names its verb: what the command's start
// (command.ts) and the program (verbFile.ts) look at before anything else is loaded.

/** The program's own options that take a value, which may come before the verb. */
const GLOBAL_VALUE_OPTIONS = ["--data-dir", "--store"];

/** The verbs that run a task in their own process, and so run most of warden's code. */
const TASK_VERBS: readonly string[] = ["run", "start", "rerun", "continue", "worker"];

/** The program's own options that print its version and end it: they need no verb. */
export const VERSION_OPTIONS: readonly string[] = ["-V", "--version"];

/** The verbs of the quick program (quickVerbs.ts), which holds their files alone. */
export const QUICK_VERBS: readonly string[] = ["ls", "show", "send"];

/**
 * Which bundle of the program a command line runs (command.ts): the whole program, with the code
 * cache of a task's run (`task`) or of other verbs (`whole`), or the quick program.
 */
export type ProgramKind = "task" | "quick" | "whole";

/** The first word of a command line after value options of the program's own. */
export function firstWord(args: readonly string[]): string | undefined {
  let i = 0;
  while (i < args.length) {
    const word = args[i] ?? "";
    if (GLOBAL_VALUE_OPTIONS.includes(word)) i += 2;
    else if (GLOBAL_VALUE_OPTIONS.some((option) => word.startsWith(`${option}=`))) i += 1;
    else break;
  }
  return args[i];
}

/** The bundle a command line runs: `quick` for --version and the quick verbs alone. */
export function programKind(args: readonly string[]): ProgramKind {
  const word = firstWord(args);
  if (word === undefined) return "whole";
  if (TASK_VERBS.includes(word)) return "task";
  if (QUICK_VERBS.includes(word) || VERSION_OPTIONS.includes(word)) return "quick";
  return "whole";
}
