// A worker's labels and a task's required ones (`settings.require`): a worker runs a task only
// when it has every label the task requires, with the same value. Pure.
import { parseLabelWords, type Labels } from "../../host/index.js";

export type { Labels };

/** Parses `--label NAME=VALUE` words into the worker's labels. */
export function parseLabels(words: readonly string[]): Labels {
  return parseLabelWords(words, "--label");
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
