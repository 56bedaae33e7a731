// warden/config: the defaults a user and a repository set in config files, read in one place.
// The user's file ($XDG_CONFIG_HOME/warden/config.yaml) holds any key; a repository's
// .warden/config.yaml only those a repository may set (configKeys.ts says which, and why).
import { configDefaults, mergeConfig, type Config } from "./mergeConfig.js";
import { readConfigFile, repositoryConfigPath, userConfigPath } from "./readConfig.js";

export { CONFIG_KEYS, CONFIG_KEY_NAMES, type ConfigKey, type ConfigValues } from "./configKeys.js";
export { BadConfigError } from "./errors.js";
export { CONFIG_LIMITS } from "./limits.js";
export type { Config, ConfigEntry, ConfigSource, IgnoredKey } from "./mergeConfig.js";
export { REPOSITORY_CONFIG, userConfigPath } from "./readConfig.js";
export { userStoreSetting, type StoreSetting } from "./userStore.js";

export interface LoadOptions {
  /** A directory in the repository whose file is read; without it, the user's file alone. */
  repo?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

/** Reads the user's file and (given a repository) the repository's, and merges them. */
export async function loadConfig(options: LoadOptions = {}): Promise<Config> {
  const userPath = userConfigPath(options.env ?? process.env);
  const user = { path: userPath, file: await readConfigFile(userPath) };
  const repoPath =
    options.repo === undefined ? undefined : await repositoryConfigPath(options.repo);
  const repository =
    repoPath === undefined ? undefined : { path: repoPath, file: await readConfigFile(repoPath) };
  return mergeConfig({
    user,
    ...(repository === undefined ? {} : { repository }),
    defaults: configDefaults(),
  });
}
