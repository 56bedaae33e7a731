// The fleet's store the user's config file names, if it names one. Only the user's file is read:
// a repository's .warden/config.yaml is someone else's text, and a store it named would receive
// the user's tasks. The file is parsed (and its schema loaded) only when it has a `store:` key,
// so a verb that runs on this machine pays one small read for the question.
import { lstat, readFile } from "node:fs/promises";
import type { ConfigValues } from "./configKeys.js";
import { CONFIG_LIMITS } from "./limits.js";
import { userConfigPath } from "./userConfigPath.js";

/** The `store:` value of a config file. */
export type StoreSetting = NonNullable<ConfigValues["store"]>;

const STORE_KEY = /^store\s*:/m;

/** The user's `store:` and the file it is in; undefined when the user's file names none. */
export async function userStoreSetting(
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ setting: StoreSetting; file: string } | undefined> {
  const file = userConfigPath(env);
  const found = await lstat(file).catch(() => undefined);
  if (found === undefined) return undefined;
  // Anything but a small regular file is refused by the full reader, with its reason.
  const small = found.isFile() && found.size <= CONFIG_LIMITS.fileBytes;
  if (small && !STORE_KEY.test(await readFile(file, "utf8"))) return undefined;
  const { readConfigFile } = await import("./readConfig.js");
  const setting = readConfigFile(file)?.values.store;
  return setting === undefined ? undefined : { setting, file };
}
