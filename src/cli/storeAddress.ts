// Where a command's tasks are: this machine's data directory, or a fleet's store on NATS. Named,
// first found wins, by the global --store, by WARDEN_STORE, or by `store:` in the user's config
// file (never a repository's: userStore.ts). `local` names this machine's store over the others.
//
// The user and password go to the server they were given for and no other: a URL's own are
// taken from it (and the URL kept without them), and the config file's are used only for a
// store on the config's own host, so `--store` naming another server never receives them.
import { lstat, readFile } from "node:fs/promises";
import type { StoreSetting } from "../config/index.js";
import type { FleetCredentials } from "../fleet/index.js";
import { userConfigPath } from "../store/index.js";
import { BadStoreError } from "./cliErrors.js";
import { CLI_LIMITS } from "./limits.js";

type Env = Readonly<Record<string, string | undefined>>;

/** A fleet's store: its servers (without credentials), who to be there, and what named it. */
export interface FleetAddress {
  kind: "fleet";
  servers: string;
  credentials?: FleetCredentials;
  /** What named the store: `--store`, `WARDEN_STORE`, or the config file's path. */
  from: string;
}

export type StoreAddress = { kind: "local" } | FleetAddress;

/** The word that names this machine's store. */
export const LOCAL_STORE = "local";

interface ParsedUrl {
  servers: string;
  host: string;
  password?: { user: string; password: string };
}

/** A nats:// or tls:// URL, split into the servers and the user and password it carries. */
function parseUrl(text: string, from: string): ParsedUrl {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    // The text is not repeated: it may hold a password.
    throw new BadStoreError(`the store ${from} names is not a URL`);
  }
  if (url.protocol !== "nats:" && url.protocol !== "tls:") {
    throw new BadStoreError(`the store ${from} names is not a nats:// or tls:// URL`);
  }
  if (url.host === "" || (url.pathname !== "" && url.pathname !== "/")) {
    throw new BadStoreError(`the store ${from} names is not nats://HOST:PORT`);
  }
  const parsed: ParsedUrl = { servers: `${url.protocol}//${url.host}`, host: url.host };
  if (url.username !== "") {
    parsed.password = {
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
    };
  }
  return parsed;
}

/** The credentials a config's `store:` mapping names, if any. */
function configCredentials(setting: StoreSetting): FleetCredentials | undefined {
  if (typeof setting === "string") return undefined;
  if (setting.credsFile !== undefined) return { kind: "creds", credsFile: setting.credsFile };
  if (setting.nkeySeedFile !== undefined) return { kind: "nkey", seedFile: setting.nkeySeedFile };
  if (setting.user !== undefined) {
    return { kind: "password", user: setting.user, password: setting.password ?? "" };
  }
  return undefined;
}

/**
 * Pure: the store a command uses, from the --store value, the environment and the user's
 * config's `store:` (read before, with its file).
 */
export function planStoreAddress(
  flag: string | undefined,
  env: Env,
  config: { setting: StoreSetting; file: string } | undefined,
): StoreAddress {
  const named: { text: string; from: string } | undefined =
    flag !== undefined
      ? { text: flag, from: "--store" }
      : env.WARDEN_STORE !== undefined && env.WARDEN_STORE !== ""
        ? { text: env.WARDEN_STORE, from: "WARDEN_STORE" }
        : config === undefined
          ? undefined
          : {
              text: typeof config.setting === "string" ? config.setting : config.setting.url,
              from: config.file,
            };
  if (named === undefined || named.text === LOCAL_STORE) return { kind: "local" };
  const url = parseUrl(named.text, named.from);
  const address: FleetAddress = { kind: "fleet", servers: url.servers, from: named.from };
  if (url.password !== undefined) {
    address.credentials = { kind: "password", ...url.password };
    return address;
  }
  if (config === undefined) return address;
  const configUrl = parseUrl(
    typeof config.setting === "string" ? config.setting : config.setting.url,
    config.file,
  );
  const credentials = configUrl.password
    ? { kind: "password" as const, ...configUrl.password }
    : configCredentials(config.setting);
  if (credentials !== undefined && configUrl.host === url.host) address.credentials = credentials;
  return address;
}

/** A `store:` key at the start of a line of a config file. */
const STORE_KEY = /^store\s*:/m;

/**
 * Whether the user's config file may name a store: it has a `store:` line, or it is something
 * the full reader must refuse (not a small regular file). Only then is the file parsed, which
 * loads the config's schema: a verb on this machine pays one small read for the question.
 */
async function mayNameStore(file: string): Promise<boolean> {
  const found = await lstat(file).catch(() => undefined);
  if (found === undefined) return false;
  if (!found.isFile() || found.size > CLI_LIMITS.storeLookBytes) return true;
  return STORE_KEY.test(await readFile(file, "utf8"));
}

/** The store a command uses: reads the user's config only when it may name one. */
export async function storeAddress(flag: string | undefined, env: Env): Promise<StoreAddress> {
  if (flag === LOCAL_STORE) return { kind: "local" };
  if (!(await mayNameStore(userConfigPath(env)))) return planStoreAddress(flag, env, undefined);
  const { userStoreSetting } = await import("../config/index.js");
  return planStoreAddress(flag, env, await userStoreSetting(env));
}

/** A `store:` value as `warden config` shows it: the URL without its password, and no password. */
export function storeSettingText(setting: StoreSetting): string {
  const url = typeof setting === "string" ? setting : setting.url;
  const shown = url.replace(/\/\/([^@/:]*)(:[^@/]*)?@/, "//$1@");
  if (typeof setting === "string") return shown;
  const extra = [
    setting.user === undefined ? undefined : `user ${setting.user}`,
    setting.password === undefined ? undefined : "password set",
    setting.nkeySeedFile === undefined ? undefined : `nkey seed ${setting.nkeySeedFile}`,
    setting.credsFile === undefined ? undefined : `creds ${setting.credsFile}`,
  ].filter((part) => part !== undefined);
  return extra.length === 0 ? shown : `${shown} (${extra.join(", ")})`;
}
