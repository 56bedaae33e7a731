// A task's event as `watch`, `show` and a foreground run print it: one line of text.
import { eventText, OUTPUT_EVENT_TYPE } from "../host/index.js";
import { timeText } from "../lang/index.js";
import { cleanLine } from "../protocol/index.js";
import type { TaskEvent } from "../store/index.js";

/**
 * One event as a line of text: the agent's events, approvals and messages in words, any other
 * as `key=value`. Every value is cleaned: progress lines and agent events are sandbox text.
 */
export function eventLine(event: TaskEvent, now = Date.now()): string {
  const time = timeText(event.at, now);
  const { seq: _seq, at: _at, type, ...rest } = event;
  let text: string;
  const readable = eventText(type, rest);
  if (readable !== undefined) text = readable;
  else {
    text = Object.entries(rest)
      .map(([key, value]) => `${key}=${typeof value === "string" ? value : JSON.stringify(value)}`)
      .join(" ");
  }
  // A command's output line is labelled with its stream, as the guest log labels it.
  const label =
    type === OUTPUT_EVENT_TYPE && (rest.stream === "stdout" || rest.stream === "stderr")
      ? rest.stream
      : type;
  return `${time} ${cleanLine(label)}: ${cleanLine(text)}`;
}
