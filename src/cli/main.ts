#!/usr/bin/env node
// The start of the `warden` command: it chooses how to load the program (program.ts). A verb
// that runs a task loads most of warden (the host, the store, the sandboxes, the egress proxy),
// and compiling that code was about 60 ms of its start, so those verbs load the whole program as
// one CommonJS bundle with V8's code cache (dist/cli/program.cjs, made by scripts/bundleCli.mjs).
// Every other verb loads the ES modules of its own verb alone, which is less than the cache
// would read. Both are the same program built from the same source: the choice changes how fast
// a command starts, never what it does.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { firstWord } from "./verbs.js";

/** The verbs that run a task in this process and so load most of warden. */
const TASK_VERBS: readonly string[] = ["run", "start", "rerun", "continue", "worker"];

/** The whole program, bundled as CommonJS; absent when warden runs from its source (tsx). */
const PROGRAM_BUNDLE = fileURLToPath(new URL("program.cjs", import.meta.url));

/** The program's `main`, loaded the way that starts faster for this command line. */
async function loadMain(args: readonly string[]): Promise<() => Promise<void>> {
  const word = firstWord(args);
  if (word !== undefined && TASK_VERBS.includes(word) && existsSync(PROGRAM_BUNDLE)) {
    const { runCachedBundle, traceFromEnv } = await import("../lang/index.js");
    const program = runCachedBundle(PROGRAM_BUNDLE, traceFromEnv(process.env));
    return (program as { main: () => Promise<void> }).main;
  }
  return (await import("./program.js")).main;
}

const main = await loadMain(process.argv.slice(2));
await main();
