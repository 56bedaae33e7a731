#!/usr/bin/env node
// The command `warden` (package.json's bin): it runs the bundled program, program.cjs beside it,
// with the V8 code cache the build made for it (scripts/bundleCli.mjs), as `warden-guest` runs
// the runner. It is CommonJS itself, like the bundle, so that Node starts it without its loader
// for ES modules.
import { fileURLToPath } from "node:url";
import { runCachedBundle, traceFromEnv } from "../lang/index.js";

/** What program.cjs (src/cli/program.ts) gives. */
interface Program {
  main: () => Promise<void>;
}

const program = runCachedBundle(
  fileURLToPath(new URL("program.cjs", import.meta.url)),
  traceFromEnv(process.env),
) as Program;
// main settles every error itself: it prints it and sets the exit code.
void program.main();
