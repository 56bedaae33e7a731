// The quick `warden` program, `ls`, `show`, `send` and --version alone: what dist/cli/quick.cjs
// is built from (quickVerbs.ts says why).
import { runProgram } from "./program.js";
import { QUICK_VERB_FILES } from "./quickVerbs.js";

export function main(): Promise<void> {
  return runProgram(QUICK_VERB_FILES);
}
