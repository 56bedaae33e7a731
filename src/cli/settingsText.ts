// A task's settings as `show` prints them: one aligned `name: value` line for each setting that
// is set, in words, never raw JSON. Settings this file does not know (a later issue's) still
// show, under their own names, so nothing set is ever hidden. Pure; the values are cleaned.
import { dollars } from "../host/index.js";
import { durationText } from "../lang/index.js";
import { cleanLine } from "../protocol/index.js";

type Fields = Record<string, unknown>;

/** How many bytes a unit of memory or disk holds, largest first. */
const BYTE_UNITS = [
  { bytes: 1024 ** 3, name: "GiB" },
  { bytes: 1024 ** 2, name: "MiB" },
  { bytes: 1024, name: "KiB" },
] as const;

function bytesText(bytes: number): string {
  const unit = BYTE_UNITS.find((u) => bytes >= u.bytes && bytes % u.bytes === 0);
  return unit === undefined ? `${bytes} bytes` : `${bytes / unit.bytes} ${unit.name}`;
}

/** A word of a command as a shell would need it: as it is when plain, else in single quotes. */
function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

function isFields(value: unknown): value is Fields {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A list of words, or undefined when there are none. */
function listText(value: unknown): string | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.map((item) => (typeof item === "string" ? item : JSON.stringify(item))).join(", ");
}

/** A bound that 0 turns off: the text of a positive number, else undefined. */
function bound(value: unknown, text: (n: number) => string): string | undefined {
  return typeof value === "number" && value > 0 ? text(value) : undefined;
}

/** Any value in a line: text as it is, anything else as JSON. */
function plain(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return listText(value);
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The settings each line below shows, so that the rest are shown under their own names. */
const SHOWN = new Set([
  "agent",
  "model",
  "command",
  "approve",
  "allowedTools",
  "disallowedTools",
  "maxTurns",
  "maxBudgetUSD",
  "timeoutSeconds",
  "gitName",
  "gitEmail",
  "sandbox",
  "allow",
  "presets",
  "env",
  "limits",
  "approval",
]);

/** The `[name, value]` pairs of the settings that are set, in the order a person reads them. */
export function settingsPairs(settings: Fields): [string, string][] {
  const approval = isFields(settings.approval) ? settings.approval : {};
  const limits = isFields(settings.limits) ? settings.limits : {};
  const author =
    typeof settings.gitName === "string" && typeof settings.gitEmail === "string"
      ? `${settings.gitName} <${settings.gitEmail}>`
      : plain(settings.gitName ?? settings.gitEmail);
  const approve =
    typeof settings.approve === "string" && typeof approval.timeoutSeconds === "number"
      ? `${settings.approve}, a person has ${durationText(approval.timeoutSeconds * 1000)} to answer`
      : plain(settings.approve);
  const command = Array.isArray(settings.command)
    ? settings.command.map((word) => shellWord(String(word))).join(" ")
    : undefined;
  const pairs: [string, string | undefined][] = [
    ["agent", plain(settings.agent)],
    ["command", command],
    ["model", plain(settings.model)],
    ["approve", approve],
    ["allow tools", listText(settings.allowedTools) ?? listText(approval.allow)],
    ["deny tools", listText(settings.disallowedTools) ?? listText(approval.deny)],
    ["max turns", bound(settings.maxTurns, String)],
    ["budget", bound(settings.maxBudgetUSD, dollars)],
    ["timeout", bound(settings.timeoutSeconds, (s) => durationText(s * 1000))],
    ["git author", author],
    ["sandbox", plain(settings.sandbox)],
    ["network", listText(settings.allow)],
    ["presets", listText(settings.presets)],
    ["env", listText(settings.env)],
    ["memory", bound(limits.memoryBytes, bytesText)],
    ["processes", bound(limits.processes, String)],
    ["disk", bound(limits.diskBytes, bytesText)],
  ];
  for (const [name, value] of Object.entries(settings)) {
    if (!SHOWN.has(name)) pairs.push([name, plain(value)]);
  }
  return pairs.filter((pair): pair is [string, string] => pair[1] !== undefined);
}

/** The settings as aligned lines, each indented by `indent`; none when nothing is set. */
export function settingsLines(settings: Fields, indent = "  "): string[] {
  const pairs = settingsPairs(settings);
  const width = Math.max(0, ...pairs.map(([name]) => name.length + 1));
  return pairs.map(([name, value]) => `${indent}${`${name}:`.padEnd(width)} ${cleanLine(value)}`);
}
