// Finding and reading the config files: the user's, and the repository's at its top. Each is
// read whole (it is small), never through a link, and checked against the schema of
// configKeys.ts; every refusal names the file and the key.
import { closeSync, constants, fstatSync, readSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { cleanLine } from "../protocol/index.js";
import { openNoFollowSync } from "../store/index.js";
import { configFileSchema, type ConfigValues } from "./configKeys.js";
import { BadConfigError } from "./errors.js";
import { CONFIG_LIMITS } from "./limits.js";
import { workingTreeTop } from "./workingTreeTop.js";

export { userConfigPath } from "../store/index.js";

/** A config file that exists, and what it holds. */
export interface ConfigFile {
  path: string;
  values: ConfigValues;
}

/** Where the repository's file lives, relative to the repository's top. */
export const REPOSITORY_CONFIG = join(".warden", "config.yaml");

/**
 * The repository's config file for a directory in it, at the top of its working tree; undefined
 * when the directory is in no working tree (not a repository, or a bare one).
 */
export async function repositoryConfigPath(dir: string): Promise<string | undefined> {
  const top = await workingTreeTop(dir);
  return top === undefined ? undefined : join(top, REPOSITORY_CONFIG);
}

/** The file's bytes, or undefined when there is no file there. */
function readBounded(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openNoFollowSync(path, constants.O_RDONLY);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw new BadConfigError(
      `cannot read ${cleanLine(path)}: ${cleanLine(String(code ?? error))}`,
      {
        hint: "make it a regular file you can read (a link is refused), or move it aside",
        cause: error,
      },
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new BadConfigError(`${cleanLine(path)} is not a regular file`);
    if (stat.size > CONFIG_LIMITS.fileBytes) {
      throw new BadConfigError(
        `${cleanLine(path)} is ${stat.size} bytes, over the ${CONFIG_LIMITS.fileBytes} a config file may have`,
      );
    }
    const bytes = Buffer.alloc(stat.size);
    const got = stat.size === 0 ? 0 : readSync(fd, bytes, 0, stat.size, 0);
    return bytes.subarray(0, got);
  } finally {
    closeSync(fd);
  }
}

/** The first thing the schema found wrong, as `KEY what is wrong`. */
function issueText(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return "is not valid";
  if (issue.code === "unrecognized_keys") {
    return `has an unknown key: ${cleanLine(issue.keys.join(", "))}`;
  }
  const key = issue.path.map(String).join(".");
  return key === "" ? cleanLine(issue.message) : `${cleanLine(key)} ${cleanLine(issue.message)}`;
}

/**
 * Reads and checks one config file; undefined when it does not exist. An empty file is `{}`.
 * The YAML parser loads only when there is a file to parse: it is a quarter of a megabyte that
 * every command reading the config would otherwise compile, with no file at all.
 */
export async function readConfigFile(path: string): Promise<ConfigFile | undefined> {
  const bytes = readBounded(path);
  if (bytes === undefined) return undefined;
  const { parseYaml } = await import("./parseYaml.js");
  let document: unknown;
  try {
    document = parseYaml(bytes.toString("utf8"));
  } catch (error) {
    // The parser's first line says what and where; the lines after it draw the place.
    const what = (error instanceof Error ? error.message : String(error))
      .split("\n")[0]
      ?.replace(/:$/, "");
    throw new BadConfigError(`${cleanLine(path)} is not YAML: ${cleanLine(what ?? "")}`, {
      cause: error,
    });
  }
  if (document === null || document === undefined) return { path, values: {} };
  if (typeof document !== "object" || Array.isArray(document)) {
    throw new BadConfigError(`${cleanLine(path)} is not a mapping of keys to values`);
  }
  const checked = configFileSchema().safeParse(document);
  if (!checked.success) {
    throw new BadConfigError(`${cleanLine(path)}: ${issueText(checked.error)}`);
  }
  return { path, values: checked.data };
}
