// Text from the sandbox is cleaned before any terminal shows it, so that it can neither move
// the cursor, recolour the screen, reorder text (bidi controls) nor pass for warden's own line.

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

// Cc except the newline, every Cf, lone surrogates, the two Unicode line separators, and U+FFFD
// (which in sandbox text may stand for bytes that were not UTF-8).
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const UNSAFE = /\r\n|[\0-\x09\x0b-\x1f\x7f-\x9f\p{Cf}\p{Cs}\u2028\u2029\uFFFD]/gu;

function replaceUnsafe(match: string): string {
  if (match === "\r\n") return "\n";
  if (match === "\t") return " ";
  return "?";
}

/**
 * The length of the well-formed UTF-8 sequence at `i` (Unicode Table 3-7), or 0 when the byte
 * there cannot start one.
 */
function sequenceLength(b: Uint8Array, i: number): number {
  const b0 = b[i] ?? 0;
  if (b0 < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => {
    const v = b[i + k];
    return v !== undefined && v >= lo && v <= hi;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((b0 >= 0xe1 && b0 <= 0xec) || b0 === 0xee || b0 === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b0 === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (b0 === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b0 >= 0xf1 && b0 <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b0 === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** Decodes bytes, turning each maximal run of bytes that are not UTF-8 into one U+FFFD. */
function decodeLossy(bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    // Fall through to the byte-by-byte scan: only text that has bad bytes pays for it.
  }
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const parts: string[] = [];
  let start = 0;
  let i = 0;
  while (i < buf.length) {
    const n = sequenceLength(buf, i);
    if (n > 0) {
      i += n;
      continue;
    }
    if (i > start) parts.push(buf.toString("utf8", start, i));
    parts.push("\uFFFD");
    while (i < buf.length && sequenceLength(buf, i) === 0) i++;
    start = i;
  }
  if (start < buf.length) parts.push(buf.toString("utf8", start));
  return parts.join("");
}

/**
 * Makes text from the sandbox safe to show: a CRLF becomes a newline, a tab a space; every other
 * control or format character, U+2028, U+2029 and U+FFFD becomes `?`, and so does each maximal
 * run of bytes that are not UTF-8. Newlines are kept.
 */
export function cleanText(text: string | Uint8Array): string {
  const decoded = typeof text === "string" ? text : decodeLossy(text);
  return decoded.replace(UNSAFE, replaceUnsafe);
}

function lines(text: string | Uint8Array): string[] {
  const cleaned = cleanText(text);
  const split = cleaned.split("\n");
  if (split.length > 1 && split[split.length - 1] === "") split.pop();
  return split;
}

/** cleanText on one line: the lines are joined with " | ", so the text keeps to one line. */
export function cleanLine(text: string | Uint8Array): string {
  return lines(text).join(" | ");
}

/** cleanText with every line after `prefix`, for sandbox text that has lines of its own. */
export function indent(text: string | Uint8Array, prefix: string): string {
  return lines(text)
    .map((line) => prefix + line)
    .join("\n");
}

/**
 * Cuts text to at most `maxBytes` of UTF-8 at a character boundary; `cut` says whether
 * anything was dropped.
 */
export function cutText(text: string, maxBytes: number): { text: string; cut: boolean } {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return { text, cut: false };
  let end = maxBytes;
  // Step back over continuation bytes so no character is split.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return { text: bytes.toString("utf8", 0, end), cut: true };
}
