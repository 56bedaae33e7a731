// The verbs people run most, between others and in scripts: `ls`, `show` and `send`. The built
// command runs them (and --version) from a bundle of their own, dist/cli/quick.cjs, which holds
// the store and these three files and none of the host, the sandboxes or the fleet's worker: a
// start reads and compiles a bundle in proportion to its size (src/cli/command.ts).
import type { VerbFile } from "./verbFile.js";

export const LS_FILE: VerbFile = {
  runs: ["ls"],
  load: async () => (await import("./ls.js")).registerLs,
};
export const SHOW_FILE: VerbFile = {
  runs: ["show"],
  load: async () => (await import("./show.js")).registerShow,
};
export const SEND_FILE: VerbFile = {
  runs: ["send"],
  load: async () => (await import("./send.js")).registerSend,
};

/** The quick program's files; their words are firstWord.ts's QUICK_VERBS (a test holds them so). */
export const QUICK_VERB_FILES: readonly VerbFile[] = [LS_FILE, SHOW_FILE, SEND_FILE];
