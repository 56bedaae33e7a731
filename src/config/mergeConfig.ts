// The config in force: the user's file, then the repository's over it (only the keys a
// repository may set), over warden's defaults. Pure: the files are read before.
import { availableParallelism } from "node:os";
import { STORE_LIMITS } from "../store/index.js";
import { CONFIG_KEY_NAMES, CONFIG_KEYS, type ConfigKey, type ConfigValues } from "./configKeys.js";
import type { ConfigFile } from "./readConfig.js";

export type ConfigSource = "default" | "user" | "repository";

/** One key's value in force, and where it came from. */
export interface ConfigEntry {
  key: ConfigKey;
  /** Undefined when nothing sets it and warden has no default of its own to show. */
  value: ConfigValues[ConfigKey];
  source: ConfigSource;
  /** The file that set it. */
  file?: string;
}

/** A key the repository's file set that a repository may not set, so it was left out. */
export interface IgnoredKey {
  key: ConfigKey;
  file: string;
}

export interface Config {
  /** The values the files set, repository over user: what a task takes unless a flag says else. */
  values: ConfigValues;
  /** Every key, with the value in force and its source, defaults included. */
  entries: ConfigEntry[];
  ignored: IgnoredKey[];
  /** The files looked for; `found` says whether each was there. */
  files: { source: Exclude<ConfigSource, "default">; path: string; found: boolean }[];
}

/**
 * warden's own defaults, as a config file would write them, for the keys that have one worth
 * showing. One background run per core: an agent's builds and tests use a core while they run.
 */
export function configDefaults(): ConfigValues {
  return {
    agent: "claude",
    deadline: `${STORE_LIMITS.defaultDeadlineMs / 3_600_000}h`,
    maxRunning: Math.max(1, availableParallelism()),
  };
}

export interface MergeInput {
  user: { path: string; file: ConfigFile | undefined };
  repository?: { path: string; file: ConfigFile | undefined };
  defaults: ConfigValues;
}

export function mergeConfig(input: MergeInput): Config {
  const values: Record<string, ConfigValues[ConfigKey]> = {};
  const sources = new Map<ConfigKey, { source: ConfigSource; file: string }>();
  const ignored: IgnoredKey[] = [];
  const layers: [Exclude<ConfigSource, "default">, ConfigFile | undefined][] = [
    ["user", input.user.file],
    ["repository", input.repository?.file],
  ];
  for (const [source, file] of layers) {
    if (file === undefined) continue;
    for (const key of CONFIG_KEY_NAMES) {
      const value = file.values[key];
      if (value === undefined) continue;
      if (source === "repository" && !CONFIG_KEYS[key].repository) {
        ignored.push({ key, file: file.path });
        continue;
      }
      values[key] = value;
      sources.set(key, { source, file: file.path });
    }
  }
  const entries = CONFIG_KEY_NAMES.map((key): ConfigEntry => {
    const from = sources.get(key);
    if (from === undefined) return { key, value: input.defaults[key], source: "default" };
    return { key, value: values[key], source: from.source, file: from.file };
  });
  const files: Config["files"] = [
    { source: "user", path: input.user.path, found: input.user.file !== undefined },
  ];
  if (input.repository !== undefined) {
    files.push({
      source: "repository",
      path: input.repository.path,
      found: input.repository.file !== undefined,
    });
  }
  return { values: values, entries, ignored, files };
}
