// JSON as the CLI prints it with --json: what JSON.stringify makes, with every character that
// could drive a terminal written as a \u escape. JSON.stringify escapes the C0 controls itself;
// left raw would be the C1 controls (U+0080-U+009F, some terminals act on them), the bidi
// controls (which reorder what a person sees) and U+2028/U+2029 (line breaks to some readers).
// Sandbox text reaches this output, so none of them is ever printed raw.

/** The characters written as escapes beyond those JSON.stringify escapes. */
const TERMINAL_ACTIVE = /[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

/**
 * `value` as one line of JSON that parses back to what JSON.stringify's output parses to.
 * Escaping in the finished text is sound: these characters only ever stand raw inside a string,
 * and no JSON escape sequence contains one.
 */
export function jsonText(value: unknown): string {
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) return "null";
  return text.replace(
    TERMINAL_ACTIVE,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
