// Which of the verb files a command line needs. Loading every verb's code (and through it the
// host, the store, the sandboxes and their schemas) is most of what a `warden` process spends
// before it does anything, so a command line that names a verb loads that verb's file alone; one
// that needs the whole program (help, a misspelt verb, completion) loads every file.
import type { Command } from "commander";
import { firstWord } from "./firstWord.js";

/** What a verb file gives the program: a function that adds its verbs to it. */
export type RegisterVerbs = (program: Command) => void;

/**
 * One verb file: the words that run a verb it registers, each of which needs this file alone,
 * and how to load it.
 */
export interface VerbFile {
  runs: readonly string[];
  load: () => Promise<RegisterVerbs>;
}

/**
 * Every verb file, in the order `warden --help` lists their verbs. Each loads only when it is
 * called, so a file's imports cost nothing to a command line that runs another verb. A test
 * checks `runs` against the verbs the files register.
 */
export const VERB_FILES: readonly VerbFile[] = [
  { runs: ["run"], load: async () => (await import("./run.js")).registerRun },
  { runs: ["create"], load: async () => (await import("./create.js")).registerCreate },
  { runs: ["start"], load: async () => (await import("./start.js")).registerStart },
  { runs: ["rerun"], load: async () => (await import("./rerun.js")).registerRerun },
  { runs: ["continue"], load: async () => (await import("./continue.js")).registerContinue },
  { runs: ["ls"], load: async () => (await import("./ls.js")).registerLs },
  { runs: ["show"], load: async () => (await import("./show.js")).registerShow },
  { runs: ["watch"], load: async () => (await import("./watch.js")).registerWatch },
  { runs: ["logs"], load: async () => (await import("./logs.js")).registerLogs },
  { runs: ["send"], load: async () => (await import("./send.js")).registerSend },
  {
    runs: ["approve", "approvals"],
    load: async () => (await import("./approve.js")).registerApprove,
  },
  { runs: ["cancel"], load: async () => (await import("./cancel.js")).registerCancel },
  {
    runs: ["suspend", "resume"],
    load: async () => (await import("./suspend.js")).registerSuspend,
  },
  { runs: ["wait"], load: async () => (await import("./wait.js")).registerWait },
  { runs: ["exec"], load: async () => (await import("./exec.js")).registerExec },
  { runs: ["shell"], load: async () => (await import("./shell.js")).registerShell },
  { runs: ["cp"], load: async () => (await import("./cp.js")).registerCp },
  { runs: ["stop"], load: async () => (await import("./stop.js")).registerStop },
  { runs: ["fetch"], load: async () => (await import("./fetch.js")).registerFetch },
  { runs: ["diff"], load: async () => (await import("./diff.js")).registerDiff },
  { runs: ["rm"], load: async () => (await import("./rm.js")).registerRm },
  { runs: ["gc"], load: async () => (await import("./gc.js")).registerGc },
  { runs: ["doctor"], load: async () => (await import("./doctor.js")).registerDoctor },
  { runs: ["config"], load: async () => (await import("./config.js")).registerConfig },
  { runs: ["serve"], load: async () => (await import("./serve.js")).registerServe },
  { runs: ["worker"], load: async () => (await import("./worker.js")).registerWorker },
  // `completion` builds its script from every verb's options, so it needs the whole program;
  // the hidden verb the script calls for task ids needs only this file.
  {
    runs: ["__complete-ids"],
    load: async () => (await import("./completion.js")).registerCompletion,
  },
];

/** The program's own options that print its version and end it: they need no verb. */
const VERSION_OPTIONS = ["-V", "--version"];

/**
 * The verb files a command line (the words after `warden`) needs, in help's order: the one file
 * of the verb it plainly names, none for --version, else every file. Anything but value options of the program's
 * own before the verb (--help, --version, a word commander would refuse) loads every file, so
 * that commander sees the whole program as it always did.
 */
export function verbFilesFor(args: readonly string[]): readonly VerbFile[] {
  const word = firstWord(args);
  if (word !== undefined && VERSION_OPTIONS.includes(word)) return [];
  const file = VERB_FILES.find((candidate) => word !== undefined && candidate.runs.includes(word));
  return file === undefined ? VERB_FILES : [file];
}

/** Loads the verb files a command line needs and hands back their register functions. */
export async function loadVerbs(args: readonly string[]): Promise<RegisterVerbs[]> {
  return Promise.all(verbFilesFor(args).map((file) => file.load()));
}
