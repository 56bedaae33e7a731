// `--require K=V`: the labels a fleet's worker must have to take the task, checked here by the
// names and bounds the task's settings are checked by, so a typo is refused in the flag's words.
import { MAX_REQUIRED_LABELS, parseLabelWords } from "../host/index.js";
import { UsageError } from "./cliErrors.js";

/** The labels of every --require, as the settings hold them. */
export function parseRequire(given: readonly string[]): Record<string, string> {
  if (given.length > MAX_REQUIRED_LABELS) {
    throw new UsageError(`a task requires at most ${MAX_REQUIRED_LABELS} labels`, {
      hint: "require fewer labels",
    });
  }
  return parseLabelWords(given, "--require");
}
