// `--require K=V`: the labels a fleet's worker must have to take the task, checked here by the
// names and bounds the task's settings are checked by, so a typo is refused in the flag's words.
import { LABEL_NAME, MAX_LABEL_VALUE_BYTES, MAX_REQUIRED_LABELS } from "../host/index.js";
import { cleanLine } from "../protocol/index.js";
import { UsageError } from "./cliErrors.js";

/** The labels of every --require, as the settings hold them. */
export function parseRequire(given: readonly string[]): Record<string, string> {
  if (given.length > MAX_REQUIRED_LABELS) {
    throw new UsageError(`a task requires at most ${MAX_REQUIRED_LABELS} labels`, {
      hint: "require fewer labels",
    });
  }
  const labels: Record<string, string> = {};
  for (const text of given) {
    const at = text.indexOf("=");
    const name = at === -1 ? text : text.slice(0, at);
    const value = at === -1 ? "" : text.slice(at + 1);
    if (at === -1 || !LABEL_NAME.test(name)) {
      throw new UsageError(`--require ${cleanLine(text)} is not NAME=VALUE`, {
        hint: "a name is 1 to 64 of A-Z a-z 0-9 _ . -, as in --require gpu=1",
      });
    }
    if (Buffer.byteLength(value) > MAX_LABEL_VALUE_BYTES) {
      throw new UsageError(`--require ${name}'s value is over ${MAX_LABEL_VALUE_BYTES} bytes`, {
        hint: "a label's value is a short word",
      });
    }
    if (Object.hasOwn(labels, name)) {
      throw new UsageError(`--require ${name} is given twice`, { hint: "require each label once" });
    }
    labels[name] = value;
  }
  return labels;
}
