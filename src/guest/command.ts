#!/usr/bin/env node
// The command `warden-guest` (package.json's bin, what the host starts in every sandbox): it runs
// the bundled runner, runner.cjs beside it, with the V8 code cache the build made for it
// (scripts/bundleGuest.mjs). It is CommonJS itself, like the bundle, so that Node starts it
// without its loader for ES modules.
import { fileURLToPath } from "node:url";
import { runCachedBundle, traceFromEnv } from "../lang/index.js";

// WARDEN_TRACE is never set inside a sandbox; run by hand, the command traces its load too.
runCachedBundle(
  fileURLToPath(new URL("runner.cjs", import.meta.url)),
  traceFromEnv(process.env, "guest"),
);
