// What Claude Code reads on stdin with `--input-format stream-json`: one JSON object a line,
// each a user message. The first is the prompt; each further one is a message delivered at a
// turn boundary. Claude Code answers each with a `result` line and then waits for the next,
// until its stdin is closed.

/**
 * The stdin line (newline included) that gives Claude Code one user message. JSON escapes every
 * line break the text holds; U+2028 and U+2029 are escaped as well, so no reader of the line can
 * take it for two.
 */
export function userMessageLine(text: string): string {
  const json = JSON.stringify({ type: "user", message: { role: "user", content: text } });
  return `${json.replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")}\n`;
}
