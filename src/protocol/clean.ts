// Text from the sandbox is cleaned before any terminal shows it, so that it can neither move
// the cursor, recolour the screen, reorder text (bidi controls) nor pass for warden's own line.

import { isUtf8 } from "node:buffer";
import { memo } from "../lang/index.js";

/** What to do with one UTF-16 code unit. */
const KEEP = 0;
const UNSAFE = 1;
const TAB = 2;
const CR = 3;
const SURROGATE = 4;

/**
 * Every UTF-16 code unit's kind: Cc except the newline, every Cf, U+2028, U+2029 and U+FFFD
 * (which in sandbox text may stand for bytes that were not UTF-8) are unsafe; a tab, a carriage
 * return and a surrogate need a closer look. The Cf set comes from the engine's own Unicode
 * tables, so it follows the Unicode version of the Node.js that runs warden. The table is made
 * on the first text cleaned that holds more than printable ASCII: testing every code unit takes
 * milliseconds that a command which cleans nothing else would otherwise spend.
 */
const KINDS = memo((): Uint8Array => {
  const kinds = new Uint8Array(0x10000);
  for (let c = 0; c < 0x20; c++) kinds[c] = UNSAFE;
  for (let c = 0x7f; c <= 0x9f; c++) kinds[c] = UNSAFE;
  kinds[0x0a] = KEEP;
  kinds[0x09] = TAB;
  kinds[0x0d] = CR;
  kinds[0x2028] = UNSAFE;
  kinds[0x2029] = UNSAFE;
  kinds[0xfffd] = UNSAFE;
  kinds.fill(SURROGATE, 0xd800, 0xe000);
  // One search of a text of every code unit finds the format characters far faster than a test
  // of each unit alone. The surrogates are left out of the text, where they would pair up into
  // characters beyond the BMP, so a unit past them sits 0x800 before its own index.
  const codes = new Uint16Array(0x10000);
  for (let c = 0; c < 0x10000; c++) codes[c] = c;
  const units = Buffer.from(codes.buffer);
  const text = units.toString("utf16le", 0, 0xd800 * 2) + units.toString("utf16le", 0xe000 * 2);
  for (const found of text.matchAll(/\p{Cf}/gu)) {
    const c = found.index < 0xd800 ? found.index : found.index + 0x800;
    if (kinds[c] === KEEP) kinds[c] = UNSAFE;
  }
  return kinds;
});

/** Format characters beyond the BMP (tags, musical and Egyptian format controls...). */
const ASTRAL_FORMAT = /^\p{Cf}$/u;

/**
 * Whether a code unit is printable ASCII or a newline, which every text keeps as it is: most
 * text holds nothing else, and is returned without the table of kinds, which takes a few
 * milliseconds to make.
 */
function isPlainAscii(unit: number): boolean {
  return (unit >= 0x20 && unit < 0x7f) || unit === 0x0a;
}

/**
 * cleanText on a string: one pass over its code units, no allocation for a unit that is kept,
 * and no copy at all when nothing is unsafe.
 */
function cleanString(text: string): string {
  const length = text.length;
  let first = 0;
  while (first < length && isPlainAscii(text.charCodeAt(first))) first++;
  if (first === length) return text;
  const kinds = KINDS();
  let out = "";
  let last = 0;
  for (let i = first; i < length; i++) {
    const unit = text.charCodeAt(i);
    const kind = kinds[unit] ?? KEEP;
    if (kind === KEEP) continue;
    let replacement = "?";
    // The first unit after what is replaced.
    let end = i + 1;
    if (kind === TAB) {
      replacement = " ";
    } else if (kind === CR) {
      if (text.charCodeAt(i + 1) === 0x0a) {
        replacement = "\n";
        end = i + 2;
      }
    } else if (kind === SURROGATE && unit <= 0xdbff) {
      const low = text.charCodeAt(i + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        if (!ASTRAL_FORMAT.test(text.slice(i, i + 2))) {
          i++; // A character beyond the BMP that is not a format character: kept whole.
          continue;
        }
        end = i + 2;
      }
    }
    out += text.slice(last, i) + replacement;
    last = end;
    i = end - 1;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** U+FFFD as UTF-8: the one place a replacement character in decoded text was really sent. */
const REPLACEMENT_BYTES = Buffer.from([0xef, 0xbf, 0xbd]);
const REPLACEMENT_RUN = /\uFFFD+/g;

/**
 * Decodes bytes, turning each maximal run of bytes that are not UTF-8 into one `?`, and each
 * U+FFFD sent as such into `?` too (which cleanString would do anyway).
 *
 * The decoder of Buffer#toString puts a U+FFFD for each maximal subpart of an ill-formed
 * sequence and never swallows a valid character, so between two valid characters a run of bad
 * bytes becomes a run of U+FFFD, which becomes one `?`. A U+FFFD that was sent as its bytes must
 * not be merged with its neighbours, so the bytes are split at each EF BF BD first: those three
 * bytes are always a whole character, whatever precedes them.
 */
function decodeLossy(bytes: Uint8Array): string {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The fast path: only text that has bad bytes pays for what follows.
  if (isUtf8(buf)) return buf.toString("utf8");
  const parts: string[] = [];
  let start = 0;
  for (;;) {
    const at = buf.indexOf(REPLACEMENT_BYTES, start);
    const end = at === -1 ? buf.length : at;
    parts.push(buf.toString("utf8", start, end).replace(REPLACEMENT_RUN, "?"));
    if (at === -1) return parts.join("?");
    start = at + REPLACEMENT_BYTES.length;
  }
}

/**
 * Makes text from the sandbox safe to show: a CRLF becomes a newline, a tab a space; every other
 * control or format character, U+2028, U+2029, U+FFFD and lone surrogates become `?`, and so
 * does each maximal run of bytes that are not UTF-8. Newlines are kept.
 */
export function cleanText(text: string | Uint8Array): string {
  return cleanString(typeof text === "string" ? text : decodeLossy(text));
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
