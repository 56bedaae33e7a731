// Prompts and messages as the store takes them: text, given as a string or as the bytes a file
// or a pipe held. Bytes that are not UTF-8 are refused, never decoded into U+FFFD, so what the
// agent reads is what was given; a NUL is refused too, since no prompt means one and the
// programs that pass text on stop at it.

/** A lone surrogate: a JS string that no UTF-8 text can be. */
export const LONE_SURROGATE = /\p{Cs}/u;

/** The text, or why the input is not text, in words ("it is not valid UTF-8"). */
export type InputText = { text: string } | { notText: string };

/**
 * Decodes and checks a prompt or a message. A byte-order mark at the start of bytes is dropped,
 * as every UTF-8 reader does.
 */
export function decodeInputText(value: string | Uint8Array): InputText {
  let text: string;
  if (typeof value === "string") {
    if (LONE_SURROGATE.test(value)) {
      return { notText: "it has a lone surrogate, which UTF-8 cannot hold" };
    }
    text = value;
  } else {
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(value);
    } catch {
      return { notText: "it is not valid UTF-8" };
    }
  }
  if (text.includes("\0")) return { notText: "it has a NUL character" };
  return { text };
}
