// Allow and deny rules for an agent's tool calls (`--allow-tool`, `--deny-tool`), as the host
// applies them to each permission prompt. The grammar is Claude Code's own permission-rule form,
// so the same rules can be handed to Claude Code as well:
//
//   rule = TOOL [ "(" ARG ")" ]
//   TOOL   a tool name: a letter, then letters, digits, `_`, `-`, `.`; `*` matches any run of
//          characters (`mcp__github__*`). Matched against the whole tool name, case-sensitively.
//   ARG    matched against the whole subject of the call (below); `*` matches any run of
//          characters, spaces and `/` included; a trailing `:*` is Claude Code's prefix form and
//          reads as `*` (`Bash(git commit:*)`). `domain:HOST` matches the host of a URL subject,
//          with `*` as above (`WebFetch(domain:*.example.com)`).
//
// A rule without ARG matches every call of the tool. The subject of a call is the input field
// that says what it does: Bash's command, the path of Read, Write, Edit, MultiEdit and
// NotebookEdit, the pattern of Glob and Grep, WebFetch's URL, WebSearch's query; for any other
// tool the first of command, file_path, path, pattern, url, query it has, else its input as JSON.
import { CLAUDE_TOOL_SUBJECT, LIKELY_SUBJECT_FIELDS } from "../../agents/index.js";
import { cleanLine } from "../../protocol/index.js";
import { BadTaskOptionError } from "../errors.js";
import { simpleCommands } from "./shellCommands.js";

/** The most rules one list may hold, and the bytes of one: the same bounds as the settings'. */
export const MAX_TOOL_RULES = 256;
export const MAX_TOOL_RULE_BYTES = 1024;

/** The same form the settings take for Claude Code's allowedTools and disallowedTools. */
const RULE = /^([A-Za-z][A-Za-z0-9_*.-]*)(?:\((.*)\))?$/su;

// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Cs}]/u;

export interface ToolRule {
  /** As the user wrote it. */
  readonly text: string;
  readonly tool: RegExp;
  /** Absent: every call of the tool. */
  readonly arg?: { readonly pattern: RegExp; readonly domain: boolean };
}

/** A glob where `*` is any run of characters, as an anchored expression. */
function globExpression(glob: string): RegExp {
  const body = glob
    .split("*")
    .map((part) => part.replace(/[\\^$.|?+()[\]{}]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${body}$`, "su");
}

/** Reads one rule; throws BadTaskOptionError for one that is not in the grammar. */
export function parseToolRule(text: string, option: string): ToolRule {
  const refuse = (why: string): never => {
    throw new BadTaskOptionError(`${option} ${cleanLine(text)}: ${why}`, {
      hint: `write a tool name and an optional pattern, such as ${option} Bash or ${option} 'Bash(git *)'`,
    });
  };
  if (Buffer.byteLength(text) > MAX_TOOL_RULE_BYTES) refuse(`over ${MAX_TOOL_RULE_BYTES} bytes`);
  if (CONTROL.test(text)) refuse("it has a control character");
  const match = RULE.exec(text);
  if (match === null) refuse("not a tool name with an optional pattern in parentheses");
  const [, tool = "", arg] = match ?? [];
  const rule: { text: string; tool: RegExp; arg?: { pattern: RegExp; domain: boolean } } = {
    text,
    tool: globExpression(tool),
  };
  if (arg !== undefined) {
    const domain = arg.startsWith("domain:");
    let glob = domain ? arg.slice("domain:".length) : arg;
    if (glob.endsWith(":*")) glob = glob.slice(0, -2) + "*";
    rule.arg = { pattern: globExpression(glob), domain };
  }
  return rule;
}

/** Reads a list of rules, refusing more than MAX_TOOL_RULES. */
export function parseToolRules(texts: readonly string[], option: string): ToolRule[] {
  if (texts.length > MAX_TOOL_RULES) {
    throw new BadTaskOptionError(`more than ${MAX_TOOL_RULES} ${option} rules`, {
      hint: "use patterns (`*`) to say more with fewer rules",
    });
  }
  return texts.map((text) => parseToolRule(text, option));
}

/**
 * What a rule's pattern is matched against, from the tool input the agent sent: its JSON (an
 * object), or, when it is not JSON, the text itself (a summary the agent made).
 */
export function toolSubject(tool: string, input: string): string {
  let value: unknown;
  try {
    value = JSON.parse(input);
  } catch {
    return input;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return input;
  const fields = value as Record<string, unknown>;
  const known = CLAUDE_TOOL_SUBJECT[tool];
  for (const field of known === undefined ? LIKELY_SUBJECT_FIELDS : [known]) {
    const subject = fields[field];
    if (typeof subject === "string") return subject;
  }
  return JSON.stringify(value);
}

function hostOf(subject: string): string | undefined {
  try {
    return new URL(subject).hostname;
  } catch {
    return undefined;
  }
}

/**
 * Whether `rule` matches a call of `tool` whose subject is `subject`, for use as an allow or a
 * deny rule. A Bash command line is judged by its simple commands (see shellCommands.ts): an
 * allow rule matches only when it matches every one of them, so nothing can be chained onto an
 * allowed command, and a line that cannot be judged from its text is never allowed by a
 * pattern; a deny rule matches when it matches the whole line or any one of its commands, or,
 * for a line that cannot be judged, any piece of it between separators.
 */
export function ruleMatches(
  rule: ToolRule,
  tool: string,
  subject: string,
  use: "allow" | "deny",
): boolean {
  if (!rule.tool.test(tool)) return false;
  const arg = rule.arg;
  if (arg === undefined) return true;
  if (arg.domain) {
    const host = hostOf(subject);
    return host !== undefined && arg.pattern.test(host);
  }
  if (tool !== "Bash") return arg.pattern.test(subject);
  const commands = simpleCommands(subject);
  const test = (command: string): boolean => arg.pattern.test(command);
  if (use === "allow") return commands !== undefined && commands.length > 0 && commands.every(test);
  return test(subject) || (commands ?? roughPieces(subject)).some(test);
}

/** A line cut at every separator and bracket a shell knows, quotes or not: for deny rules. */
function roughPieces(line: string): string[] {
  return line
    .split(/[;&|\n(){}`]|\$\(/u)
    .map((piece) => piece.trim())
    .filter((piece) => piece !== "");
}
