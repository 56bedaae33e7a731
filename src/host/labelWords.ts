// Labels as a person types them (`worker --label gpu=1`, `run --require gpu=1`): NAME=VALUE words
// with the names and bounds the task's settings hold them by (hostSettings.ts). Pure.
import { cleanLine } from "../protocol/index.js";
import { BadLabelError } from "./errors.js";
import { LABEL_NAME, MAX_LABEL_VALUE_BYTES } from "./hostSettings.js";

export type Labels = Readonly<Record<string, string>>;

/** Parses the words of `option` into labels; a word that is not NAME=VALUE or a name given twice is refused. */
export function parseLabelWords(words: readonly string[], option: string): Labels {
  const labels: Record<string, string> = {};
  for (const word of words) {
    const at = word.indexOf("=");
    const name = at < 0 ? word : word.slice(0, at);
    const value = at < 0 ? undefined : word.slice(at + 1);
    if (value === undefined || !LABEL_NAME.test(name)) {
      throw new BadLabelError(`${option} ${cleanLine(word)} is not NAME=VALUE`);
    }
    if (Buffer.byteLength(value) > MAX_LABEL_VALUE_BYTES) {
      throw new BadLabelError(`${option} ${name}'s value is over ${MAX_LABEL_VALUE_BYTES} bytes`);
    }
    if (Object.hasOwn(labels, name)) throw new BadLabelError(`${option} ${name} is given twice`);
    labels[name] = value;
  }
  return labels;
}
