// The task events of stepping inside: one when a session opens (what it runs or copies) and one
// when it ends (how). The command line is the user's own, cleaned and cut all the same: events
// are shown on terminals.
import { cleanLine, type InsideOpen } from "../../protocol/index.js";

export const INSIDE_EVENTS = {
  opened: "inside",
  ended: "inside_end",
} as const;

/** The bytes of a command line an event keeps. */
const EVENT_TEXT_BYTES = 1024;

function cut(text: string): string {
  const clean = cleanLine(text);
  return Buffer.byteLength(clean) <= EVENT_TEXT_BYTES
    ? clean
    : `${clean.slice(0, EVENT_TEXT_BYTES / 4)}…`;
}

export function openedEvent(open: InsideOpen): Record<string, unknown> {
  switch (open.kind) {
    case "exec":
      return { kind: "exec", command: cut(open.argv.join(" ")) };
    case "shell":
      return {
        kind: "shell",
        ...(open.argv === undefined ? {} : { command: cut(open.argv.join(" ")) }),
      };
    case "put":
      return { kind: "cp_in", path: cut(open.path), bytes: open.bytes };
    case "get":
      return { kind: "cp_out", path: cut(open.path) };
  }
}
