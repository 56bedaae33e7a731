// `warden config`: the defaults in force for a repository, each with where it came from (warden's
// default, the user's file, the repository's file), and the keys a repository's file set that
// only the user's file may set.
import type { Command } from "commander";
import { loadConfig, type Config, type ConfigEntry } from "../config/index.js";
import { cleanLine } from "../protocol/index.js";
import { ignoredKeyWarnings } from "./configFlags.js";
import { storeSettingText } from "./storeAddress.js";
import { printJson } from "./taskView.js";
import { standardOut, standardError } from "./standardStreams.js";

/** A value as a config file would write it: lists comma-separated, nothing set as `-`. */
function valueText(value: ConfigEntry["value"]): string {
  if (value === undefined) return "-";
  if (Array.isArray(value)) return value.length === 0 ? "[]" : value.map(String).join(", ");
  // A mapping (the MCP servers) by its names: its values may carry a token.
  if (typeof value === "object") return Object.keys(value).join(", ");
  return String(value);
}

/**
 * An entry as `warden config` shows it: the store's password is never shown, in text or JSON
 * (the URL without it, and whether one is set).
 */
function shownEntry(entry: ConfigEntry): ConfigEntry {
  if (entry.key !== "store" || entry.value === undefined) return entry;
  return {
    ...entry,
    value: storeSettingText(entry.value as Parameters<typeof storeSettingText>[0]),
  };
}

function sourceText(entry: ConfigEntry): string {
  return entry.file === undefined ? entry.source : `${entry.source} (${entry.file})`;
}

/** The text `warden config` prints: the files looked at, then one row per key. */
export function configText(config: Config): string {
  const lines = config.files.map(
    (file) =>
      `${`${file.source} file:`.padEnd(18)}${cleanLine(file.path)}${file.found ? "" : " (none)"}`,
  );
  const rows = config.entries
    .map(shownEntry)
    .map((entry) => [entry.key, cleanLine(valueText(entry.value)), cleanLine(sourceText(entry))]);
  const keyWidth = Math.max(3, ...rows.map((row) => row[0]?.length ?? 0)) + 2;
  const valueWidth = Math.max(5, ...rows.map((row) => row[1]?.length ?? 0)) + 2;
  lines.push("", "KEY".padEnd(keyWidth) + "VALUE".padEnd(valueWidth) + "FROM");
  for (const [key = "", value = "", from = ""] of rows) {
    lines.push(key.padEnd(keyWidth) + value.padEnd(valueWidth) + from);
  }
  return lines.join("\n") + "\n";
}

export function registerConfig(program: Command): void {
  program
    .command("config")
    .summary("show the defaults in force and where each came from")
    .description(
      "Show the defaults a task made here gets when no flag says otherwise, merged from " +
        "warden's own, the user's file ($XDG_CONFIG_HOME/warden/config.yaml, else " +
        "~/.config/warden/config.yaml) and the repository's .warden/config.yaml (at its top), " +
        "and where each came from. Flags win over the repository's file, and it over the " +
        "user's. A repository's file may set only agent, model, maxTurns, timeout, deadline and " +
        "denyTools: a key that would widen what a task may do (the network, tool rules, bounds, " +
        "budget, git identity, maxRunning) is ignored there, with a warning.",
    )
    .option("--repo <path>", "the repository whose file is read", ".")
    .option("--json", "print one JSON object instead of text")
    .action(async (flags: { repo: string; json?: boolean }) => {
      const config = await loadConfig({ repo: flags.repo });
      if (flags.json === true) {
        printJson({
          files: config.files,
          entries: config.entries.map(shownEntry),
          ignored: config.ignored,
        });
        return;
      }
      standardOut.write(configText(config));
      for (const warning of ignoredKeyWarnings(config)) standardError.write(warning);
    });
}
