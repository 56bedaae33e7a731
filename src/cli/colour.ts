// Colour in text output, restrained to the state of a task, and only where a person reads it: on
// a terminal, never when NO_COLOR is set (https://no-color.org), never in --json, and never in
// anything written to a file or a pipe (logs keep no escapes). Paint text after it is padded or
// cut: the escapes take no columns on screen, and the widths are counted without them.

/** Select Graphic Rendition codes of the few colours warden uses. */
const SGR = {
  green: "32",
  red: "31",
  yellow: "33",
  cyan: "36",
  dim: "2",
} as const;

type Hue = keyof typeof SGR;

/** Each state's colour; a state not named here (and every word of a new one) stays plain. */
const STATE_HUES: Readonly<Record<string, Hue>> = {
  succeeded: "green",
  failed: "red",
  running: "cyan",
  cancelled: "dim",
  interrupted: "yellow",
  suspended: "yellow",
};

/** A task waiting for a person (an approval) stands out: someone has to act. */
const WAITING_HUE: Hue = "yellow";

/** Whether output to `out` may have colour: a terminal, NO_COLOR unset or empty, not --json. */
export function colourWanted(
  out: { isTTY?: boolean },
  env: NodeJS.ProcessEnv,
  flags: { json?: boolean } = {},
): boolean {
  if (flags.json === true) return false;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return out.isTTY === true;
}

function paint(text: string, hue: Hue): string {
  return `\x1b[${SGR[hue]}m${text}\x1b[0m`;
}

/**
 * `text` (the state as shown, perhaps padded) in the colour of `state`, or as it is when colour
 * is off. `waiting` marks a task that waits for a person's answer.
 */
export function paintState(text: string, state: string, on: boolean, waiting = false): string {
  if (!on) return text;
  const hue = waiting ? WAITING_HUE : STATE_HUES[state];
  if (hue === undefined) return text;
  // Padding stays outside the escapes, so an underline or background never runs past the word.
  const word = text.trimEnd();
  return paint(word, hue) + text.slice(word.length);
}
