// The whole `warden` program, every verb: what dist/cli/program.cjs is built from.
import { runProgram } from "./program.js";
import { VERB_FILES } from "./verbs.js";

export function main(): Promise<void> {
  return runProgram(VERB_FILES);
}
