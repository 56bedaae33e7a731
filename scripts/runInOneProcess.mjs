// Runs several command lines of one of warden's bundled programs in one process, one after the
// other: node scripts/runInOneProcess.mjs BUNDLE CACHE -- ARGS... [-- ARGS...]. The build runs it
// with WARDEN_WRITE_CODE_CACHE=1, so that the code cache written as the process exits holds the
// code of every one of those command lines, where the run of one command writes that of one
// (scripts/warmProgramCache.mjs). It loads the bundle as the command does, with
// runCachedBundle from tsc's output of src/lang, so run it after tsc.
import { resolve } from "node:path";
import process from "node:process";
import { runCachedBundle } from "../dist/lang/index.js";

const [bundle, cache, ...rest] = process.argv.slice(2);
if (bundle === undefined || cache === undefined || rest[0] !== "--") {
  throw new Error("usage: runInOneProcess.mjs BUNDLE CACHE -- ARGS... [-- ARGS...]");
}
// Each `--` starts a command line.
const lines = [];
for (const word of rest) {
  if (word === "--") lines.push([]);
  else lines.at(-1).push(word);
}
const program = runCachedBundle(resolve(bundle), undefined, resolve(cache));
for (const args of lines) {
  process.argv = [process.execPath, bundle, ...args];
  await program.main();
}
