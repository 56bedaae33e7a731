// The fleet's store the user's config file names, if it names one. Only the user's file is read:
// a repository's .warden/config.yaml is someone else's text, and a store it named would receive
// the user's tasks.
import type { ConfigValues } from "./configKeys.js";
import { readConfigFile, userConfigPath } from "./readConfig.js";

/** The `store:` value of a config file. */
export type StoreSetting = NonNullable<ConfigValues["store"]>;

/** The user's `store:` and the file it is in; undefined when the user's file names none. */
export async function userStoreSetting(
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ setting: StoreSetting; file: string } | undefined> {
  const file = userConfigPath(env);
  const setting = (await readConfigFile(file))?.values.store;
  return setting === undefined ? undefined : { setting, file };
}
