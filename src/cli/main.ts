#!/usr/bin/env node
// The `warden` program from its modules, unbundled: how warden runs from its source
// (`node --import tsx src/cli/main.ts`). The built command is dist/cli/warden.cjs
// (src/cli/command.ts), the same program bundled into one file that starts faster.
import { main } from "./wholeProgram.js";

await main();
