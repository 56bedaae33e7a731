// A worker's labels and a task's required ones (`settings.require`): a worker runs a task only
// when it has every label the task requires, with the same value. Pure.
import { LABEL_NAME, MAX_LABEL_VALUE_BYTES } from "../../host/index.js";
import { BadWorkerLabelError } from "./errors.js";

export type Labels = Readonly<Record<string, string>>;

/** Parses `--label NAME=VALUE` words into labels; a name given twice is refused. */
export function parseLabels(words: readonly string[]): Labels {
  const labels: Record<string, string> = {};
  for (const word of words) {
    const at = word.indexOf("=");
    const name = at < 0 ? word : word.slice(0, at);
    const value = at < 0 ? undefined : word.slice(at + 1);
    if (
      value === undefined ||
      !LABEL_NAME.test(name) ||
      Buffer.byteLength(value) > MAX_LABEL_VALUE_BYTES
    ) {
      throw new BadWorkerLabelError(`--label ${JSON.stringify(word)} is not NAME=VALUE`);
    }
    if (Object.hasOwn(labels, name)) {
      throw new BadWorkerLabelError(`--label ${name} is given twice`);
    }
    labels[name] = value;
  }
  return labels;
}

/**
 * The labels the task's settings require that `labels` lacks or has with another value, as
 * `name=value` words. The settings are the fleet's, read defensively: a `require` that is not an
 * object of strings requires what no worker has, so such a task is run by nobody rather than by
 * a worker that guessed.
 */
export function missingLabels(settings: Record<string, unknown>, labels: Labels): string[] {
  const require = settings.require;
  if (require === undefined) return [];
  if (typeof require !== "object" || require === null || Array.isArray(require)) {
    return ["require=(not an object)"];
  }
  const missing: string[] = [];
  for (const [name, value] of Object.entries(require as Record<string, unknown>)) {
    if (typeof value !== "string" || !Object.hasOwn(labels, name) || labels[name] !== value) {
      missing.push(`${name}=${typeof value === "string" ? value : "?"}`);
    }
  }
  return missing;
}
