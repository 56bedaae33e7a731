// Hostile text inside an error message: cleaned to one line, cut short and put in quotes, so a
// message can say what it refused without letting that text reach a terminal as it is.
import { cleanLine, cutText } from "./clean.js";
import { LIMITS } from "./limits.js";

/** `"text"`: cleaned with cleanLine and cut to LIMITS.quotedTextBytes, `…` marking a cut. */
export function quote(text: string | Uint8Array): string {
  // Cut before cleaning too, so quoting a 4 KiB line does not clean all of it.
  const head =
    typeof text === "string"
      ? text.slice(0, LIMITS.quotedTextBytes * 2)
      : text.subarray(0, LIMITS.quotedTextBytes * 4);
  const cut = cutText(cleanLine(head), LIMITS.quotedTextBytes);
  const more = cut.cut || head.length < text.length;
  return `"${cut.text}${more ? "…" : ""}"`;
}
