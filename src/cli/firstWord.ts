// The first word of a `warden` command line, which names its verb: what the command's start
// (command.ts) and the program (verbs.ts) look at before anything else is loaded.

/** The program's own options that take a value, which may come before the verb. */
const GLOBAL_VALUE_OPTIONS = ["--data-dir", "--store"];

/** The verbs that run a task in their own process, and so run most of warden's code. */
const TASK_VERBS: readonly string[] = ["run", "start", "rerun", "continue", "worker"];

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

/** Whether a command line runs a task in this process (its first word is a task verb). */
export function runsATask(args: readonly string[]): boolean {
  const word = firstWord(args);
  return word !== undefined && TASK_VERBS.includes(word);
}
