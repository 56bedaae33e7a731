#!/usr/bin/env node
// The start of `warden-guest` (copied to dist/guest/warden-guest.mjs by bundleGuest.mjs): it runs
// the bundled runner, warden-guest.cjs, with V8's code cache that the build made beside it, so a
// sandbox's runner does not compile its megabyte of code again each time it starts. A cache that
// this Node's V8 does not take (another version, other flags, another bundle) is ignored and the
// code compiled as usual: the cache can make the start slower by a read, never wrong.
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import process from "node:process";
import { URL, fileURLToPath } from "node:url";
import { Script } from "node:vm";

const bundle = fileURLToPath(new URL("warden-guest.cjs", import.meta.url));
const cacheFile = fileURLToPath(new URL("warden-guest.codecache", import.meta.url));
/** Set by the build alone: the run that writes the cache after the code has run once. */
const WRITE_CACHE_ENV = "WARDEN_GUEST_WRITE_CODE_CACHE";

let cachedData;
try {
  cachedData = readFileSync(cacheFile);
} catch {
  cachedData = undefined;
}
const script = new Script(
  `(function (exports, require, module, __filename, __dirname) {${readFileSync(bundle, "utf8")}\n})`,
  { filename: bundle, cachedData },
);
if (process.env[WRITE_CACHE_ENV] === "1") {
  process.on("exit", () => {
    try {
      writeFileSync(cacheFile, script.createCachedData());
    } catch {
      // Where dist/ cannot be written the runner goes on without a cache.
    }
  });
}
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(bundle), module, bundle, dirname(bundle));
