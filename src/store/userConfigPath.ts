// Where the user's config file is, as the data directory is found (dataDir.ts): here, below the
// config's schema, so that a verb that only needs to know whether the file names a store loads
// no schema to find out.
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

type Env = Readonly<Record<string, string | undefined>>;

/** `$XDG_CONFIG_HOME/warden/config.yaml`, else `~/.config/warden/config.yaml`. */
export function userConfigPath(env: Env): string {
  const xdg = env.XDG_CONFIG_HOME;
  // The XDG spec says a relative value is invalid and is to be ignored.
  if (xdg !== undefined && xdg !== "" && isAbsolute(xdg)) return join(xdg, "warden", "config.yaml");
  const home = env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
  return join(home, ".config", "warden", "config.yaml");
}
