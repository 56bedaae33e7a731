// Strict JSON from untrusted bytes: bounded, valid UTF-8, a single value with nothing after it.
import { errorMessage } from "../lang/index.js";
import { cleanLine } from "./clean.js";
import type { WardenError } from "./errors.js";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

export function parseJsonStrict(
  bytes: Uint8Array,
  maxBytes: number,
  what: string,
  fail: (message: string) => WardenError,
): unknown {
  if (bytes.byteLength > maxBytes) {
    throw fail(`${what} is ${bytes.byteLength} bytes, over the limit of ${maxBytes}`);
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw fail(`${what} is not UTF-8`);
  }
  try {
    // JSON.parse refuses trailing data, NaN and Infinity: none of them is JSON.
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw fail(`${what} is not JSON: ${cleanLine(errorMessage(error))}`);
  }
}
