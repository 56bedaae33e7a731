// Runs one of warden's CommonJS bundles with the V8 code cache that the build wrote beside it,
// so that a process does not compile a megabyte of code again each time it starts. Node 20 takes
// a code cache only through vm.Script (its compile cache for modules came with Node 22), and
// vm.Script takes a script, not a module: hence CommonJS bundles. A cache that this Node's V8
// does not take (another version, other flags, another bundle) is ignored and the code compiled
// as usual: the cache can make a start slower by a read, never wrong.
import { isAscii } from "node:buffer";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname } from "node:path";
import process from "node:process";
import { Script } from "node:vm";
import { NO_TRACE, traceNow, type PhaseTrace } from "./phaseTrace.js";

/**
 * Set by the build alone: the run that writes a bundle's cache at its exit, once the code it
 * runs as it starts has been compiled, so that the cache holds that code and not only the top
 * level.
 */
export const WRITE_CODE_CACHE_ENV = "WARDEN_WRITE_CODE_CACHE";

/** Where the cache of `bundle` (a path ending in .cjs) is kept: beside it, as .codecache. */
export function codeCachePath(bundle: string): string {
  return bundle.replace(/\.cjs$/, "") + ".codecache";
}

/**
 * The text of a bundle. esbuild writes ASCII (it escapes other characters in strings), which as
 * Latin-1 is the same text and takes no decoding: reading a 1.5 MB bundle as UTF-8 took about
 * 20 ms, as Latin-1 under 1 ms. A bundle with any other byte is read as UTF-8.
 */
function bundleText(bundle: string): string {
  const bytes = readFileSync(bundle);
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
}

/** The parameters Node gives a CommonJS module, in the order its own wrapper takes them. */
type ModuleWrapper = (
  exports: unknown,
  require: NodeJS.Require,
  module: { exports: unknown },
  filename: string,
  dirname: string,
) => void;

/**
 * The phase `trace` gets for loading a bundle: whether V8 took its cache is in the name, so that
 * a trace shows a cache that stopped working (a test reads it).
 */
export function loadPhaseName(bundle: string, cacheTaken: boolean): string {
  return `load ${basename(bundle)} (${cacheTaken ? "code cache taken" : "no code cache"})`;
}

/**
 * Runs `bundle` as a CommonJS module and hands back its exports; `trace` times the reading and
 * compiling of it (not the running, which is the program's own). The cache is `cacheFile`, by
 * default the one beside the bundle: one bundle may have several, each written by a run of
 * other code, since V8's cache holds the functions that were compiled when it was written.
 */
export function runCachedBundle(
  bundle: string,
  trace: PhaseTrace = NO_TRACE,
  cacheFile: string = codeCachePath(bundle),
): unknown {
  const began = trace.on ? traceNow() : 0;
  let cachedData: Buffer | undefined;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(
    `(function (exports, require, module, __filename, __dirname) {${bundleText(bundle)}\n})`,
    { filename: bundle, cachedData },
  );
  // V8 sets cachedDataRejected only when it was given a cache: false is a cache taken.
  trace.since(loadPhaseName(bundle, script.cachedDataRejected === false), began);
  if (process.env[WRITE_CODE_CACHE_ENV] === "1") {
    process.on("exit", () => {
      try {
        writeFileSync(cacheFile, script.createCachedData());
      } catch {
        // Where the bundle's folder cannot be written, the program goes on without a cache.
      }
    });
  }
  const module = { exports: {} as unknown };
  const wrapper = script.runInThisContext() as ModuleWrapper;
  wrapper(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
  return module.exports;
}
