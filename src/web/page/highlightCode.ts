// A light syntax colouring for the lines of a diff, whatever the language: comments, strings,
// numbers and the keywords most languages share. It only splits a line into pieces of text with
// a kind; the page makes each piece a text node, so no line can become markup. A full grammar
// library would return HTML to insert, which the page never does with text from a sandbox.

export type TokenKind = "comment" | "string" | "number" | "keyword" | "plain";

export interface Token {
  readonly kind: TokenKind;
  readonly text: string;
}

/** Lines longer than this are left plain: colouring them is slow and helps nobody read them. */
export const MAX_COLOURED_LINE = 2_000;

const KEYWORDS = new Set([
  "as",
  "async",
  "await",
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "def",
  "default",
  "defer",
  "do",
  "elif",
  "else",
  "enum",
  "except",
  "export",
  "extends",
  "false",
  "finally",
  "fn",
  "for",
  "from",
  "func",
  "function",
  "go",
  "if",
  "impl",
  "import",
  "in",
  "interface",
  "let",
  "match",
  "mut",
  "new",
  "nil",
  "None",
  "null",
  "package",
  "pub",
  "raise",
  "return",
  "self",
  "static",
  "struct",
  "switch",
  "this",
  "throw",
  "trait",
  "True",
  "False",
  "true",
  "try",
  "type",
  "typeof",
  "undefined",
  "use",
  "var",
  "void",
  "while",
  "with",
  "yield",
]);

// One alternative per kind, tried left to right at each position: a comment runs to the end of
// the line (a `#` only after a space or at the start, so `a#b` and Rust's `#[` stay code); a
// string ends at its unescaped closing quote or at the end of the line, and a `'` after a letter
// is an apostrophe, not a quote.
const PIECES =
  /(\/\/.*$|(?<!\S)#(?![[!]).*$|\/\*.*?(?:\*\/|$)|--\s.*$)|("(?:[^"\\]|\\.)*(?:"|$)|(?<![A-Za-z0-9])'(?:[^'\\]|\\.)*(?:'|$)|`(?:[^`\\]|\\.)*(?:`|$))|(\b(?:0x[0-9a-fA-F_]+|\d[\d_]*(?:\.\d+)?(?:e[+-]?\d+)?)\b)|([A-Za-z_][A-Za-z0-9_]*)/g;

/** Splits one line of code into coloured pieces; joined, the pieces give the line back. */
export function highlightCode(line: string): Token[] {
  if (line.length > MAX_COLOURED_LINE) return [{ kind: "plain", text: line }];
  const tokens: Token[] = [];
  let plain = "";
  let last = 0;
  const push = (kind: TokenKind, text: string): void => {
    if (plain !== "") tokens.push({ kind: "plain", text: plain });
    plain = "";
    tokens.push({ kind, text });
  };
  for (const match of line.matchAll(PIECES)) {
    const at = match.index;
    plain += line.slice(last, at);
    last = at + match[0].length;
    const [whole, comment, string, number, word] = match;
    if (comment !== undefined) push("comment", whole);
    else if (string !== undefined) push("string", whole);
    else if (number !== undefined) push("number", whole);
    else if (word !== undefined && KEYWORDS.has(word)) push("keyword", whole);
    else plain += whole;
  }
  plain += line.slice(last);
  if (plain !== "") tokens.push({ kind: "plain", text: plain });
  return tokens;
}
