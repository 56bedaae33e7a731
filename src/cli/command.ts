#!/usr/bin/env node
// The command `warden` (package.json's bin): it runs a bundle of the program beside it with a V8
// code cache the build made for it (scripts/bundleCli.mjs), as `warden-guest` runs the runner.
// It is CommonJS itself, like the bundles, so that Node starts it without its loader for ES
// modules. Reading a bundle and its cache costs in proportion to their sizes, and a cache holds
// the code that had run when it was written: `ls`, `show`, `send` and --version run quick.cjs, a
// bundle of those verbs alone, with a cache written after all three ran; the verbs that run a
// task run the whole program, program.cjs, with a cache written at the end of a task's run; every
// other verb runs program.cjs with a smaller cache, written at the end of `logs`.
import { fileURLToPath } from "node:url";
import { runCachedBundle, traceFromEnv } from "../lang/index.js";
import { programKind, type ProgramKind } from "./firstWord.js";

/** What program.cjs (src/cli/program.ts) gives. */
interface Program {
  main: () => Promise<void>;
}

/** Each kind's bundle and cache, as the build names them. */
const FILES: Readonly<Record<ProgramKind, { bundle: string; cache: string }>> = {
  task: { bundle: "program.cjs", cache: "program-task.codecache" },
  whole: { bundle: "program.cjs", cache: "program.codecache" },
  quick: { bundle: "quick.cjs", cache: "quick.codecache" },
};

const beside = (name: string): string => fileURLToPath(new URL(name, import.meta.url));
const { bundle, cache } = FILES[programKind(process.argv.slice(2))];
const program = runCachedBundle(
  beside(bundle),
  traceFromEnv(process.env),
  beside(cache),
) as Program;
// main settles every error itself: it prints it and sets the exit code.
void program.main();
