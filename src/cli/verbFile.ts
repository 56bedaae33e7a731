// A verb file as the program loads it, and which of a program's verb files a command line needs.
// Loading every verb's code (and through it the host, the store, the sandboxes and their schemas)
// is most of what a `warden` process spends before it does anything, so a command line that names
// a verb loads that verb's file alone; one that needs the whole program (help, a misspelt verb,
// completion) loads every file the program has.
import type { Command } from "commander";
import { firstWord, VERSION_OPTIONS } from "./firstWord.js";

/** What a verb file gives the program: a function that adds its verbs to it. */
export type RegisterVerbs = (program: Command) => void;

/**
 * One verb file: the words that run a verb it registers, each of which needs this file alone,
 * and how to load it.
 */
export interface VerbFile {
  runs: readonly string[];
  load: () => Promise<RegisterVerbs>;
}

/**
 * The files of `files` a command line (the words after `warden`) needs, in their order: the one
 * file of the verb it plainly names, none for --version, else all of them. Anything but value
 * options of the program's own before the verb (--help, a word commander would refuse) loads
 * every file, so that commander sees the whole program as it always did.
 */
export function verbFilesFor(
  args: readonly string[],
  files: readonly VerbFile[],
): readonly VerbFile[] {
  const word = firstWord(args);
  if (word !== undefined && VERSION_OPTIONS.includes(word)) return [];
  const file = files.find((candidate) => word !== undefined && candidate.runs.includes(word));
  return file === undefined ? files : [file];
}

/** Loads the files of `files` a command line needs and hands back their register functions. */
export async function loadVerbs(
  args: readonly string[],
  files: readonly VerbFile[],
): Promise<RegisterVerbs[]> {
  return Promise.all(verbFilesFor(args, files).map((file) => file.load()));
}
