#!/usr/bin/env node
// The command `warden` (package.json's bin): it runs the bundled program, program.cjs beside it,
// with a V8 code cache the build made for it (scripts/bundleCli.mjs), as `warden-guest` runs the
// runner. It is CommonJS itself, like the bundle, so that Node starts it without its loader for
// ES modules. A cache holds the code that had run when it was written, and reading it costs in
// proportion to its size: the verbs that run a task take one written at the end of a task's
// run, every other verb a smaller one written at the end of `ls`.
import { fileURLToPath } from "node:url";
import { runCachedBundle, traceFromEnv } from "../lang/index.js";
import { runsATask } from "./firstWord.js";

/** What program.cjs (src/cli/program.ts) gives. */
interface Program {
  main: () => Promise<void>;
}

const beside = (name: string): string => fileURLToPath(new URL(name, import.meta.url));
const cache = runsATask(process.argv.slice(2)) ? "program-task.codecache" : "program.codecache";
const program = runCachedBundle(
  beside("program.cjs"),
  traceFromEnv(process.env),
  beside(cache),
) as Program;
// main settles every error itself: it prints it and sets the exit code.
void program.main();
