// The allow/deny prompt of a foreground run on a terminal: when the task's agent asks a person
// about a tool call (approve `prompt`), the person who started the run answers with one key.
// The prompt follows the task's events, and answers through the store as `warden approve` does,
// so an answer given from another terminal works as well: the first answer wins, and the prompt
// then says the request was answered elsewhere.
import { cleanLine } from "../protocol/index.js";
import { ApprovalAnsweredError, TaskFinishedError, type TaskStore } from "../store/index.js";

/** What one key press at the prompt means. */
export type PromptKey =
  | { kind: "answer"; decision: "allow" | "deny"; always: boolean }
  | { kind: "help" }
  | { kind: "interrupt" }
  | { kind: "none" };

/** The meaning of a key: y allow, n deny, a allow this tool for the rest of the run, ? help. */
export function promptKey(key: string): PromptKey {
  switch (key) {
    case "y":
    case "Y":
      return { kind: "answer", decision: "allow", always: false };
    case "n":
    case "N":
      return { kind: "answer", decision: "deny", always: false };
    case "a":
    case "A":
      return { kind: "answer", decision: "allow", always: true };
    case "?":
    case "h":
      return { kind: "help" };
    // Raw mode delivers Ctrl-C as a byte; it still means stop the run.
    case "\u0003":
      return { kind: "interrupt" };
    default:
      return { kind: "none" };
  }
}

/** The question for one request, on one line. */
export function promptQuestion(n: number, tool: string, summary: string): string {
  return `request ${n}: allow ${cleanLine(tool)}: ${cleanLine(summary)}? [y/n/a/?]`;
}

/** The help the `?` key prints. */
export function promptHelp(tool: string): string {
  return (
    `y allows this call, n denies it, a allows every ${cleanLine(tool)} call for the rest of ` +
    "this run; `warden approve` from another terminal answers as well"
  );
}

/** A field of an event as text: the event is sandbox-fed, so anything but a string is `?`. */
function fieldText(value: unknown): string {
  return typeof value === "string" ? value : "?";
}

/** Whether a run shown on these streams may prompt: both a terminal, and not --json or --quiet. */
export function mayPrompt(
  stdin: { isTTY?: boolean },
  stderr: { isTTY?: boolean },
  flags: { json?: boolean; quiet?: boolean },
): boolean {
  return (
    stdin.isTTY === true && stderr.isTTY === true && flags.json !== true && flags.quiet !== true
  );
}

/** A terminal's input, as much of it as the prompt uses. */
export interface PromptInput {
  setRawMode?(raw: boolean): unknown;
  on(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  off(event: "data", listener: (chunk: Buffer | string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

export interface PromptOptions {
  /** This machine's store, or a fleet's whose task a worker runs. */
  tasks: TaskStore;
  id: string;
  input: PromptInput;
  /** Prints one of warden's lines above the status line (the reporter's note). */
  say: (text: string) => void;
  /** Ends the prompt: the run is over. */
  signal: AbortSignal;
}

interface Asked {
  n: number;
  tool: string;
  summary: string;
}

/**
 * Prompts for each request the task's agent asks until the signal aborts: one at a time, in the
 * order asked. An answer that lost the race is no error. The terminal is in raw mode only while
 * a question waits, so Ctrl-C and typing work as usual otherwise.
 */
export async function promptApprovals(options: PromptOptions): Promise<void> {
  const { tasks, id, input, say, signal } = options;
  const queue: Asked[] = [];
  // The tools the person allowed for the rest of this run with `a`.
  const alwaysAllowed = new Set<string>();
  // The request whose question is shown and waits for a key.
  let current: Asked | undefined;
  // A question is shown or an answer is being recorded: the next request waits its turn.
  let busy = false;
  let listening = false;

  const stopListening = (): void => {
    if (!listening) return;
    listening = false;
    input.off("data", onKey);
    input.setRawMode?.(false);
    input.pause();
  };

  const startListening = (): void => {
    if (listening) return;
    listening = true;
    input.setRawMode?.(true);
    input.on("data", onKey);
    input.resume();
  };

  const settle = async (
    asked: Asked,
    decision: "allow" | "deny",
    reason?: string,
  ): Promise<void> => {
    try {
      // The run itself says how each request was settled, so the prompt adds nothing here.
      await tasks.approve(id, asked.n, decision, reason === undefined ? {} : { reason });
    } catch (error) {
      // Another terminal answered first, or the run ended: that answer stands.
      if (!(error instanceof ApprovalAnsweredError || error instanceof TaskFinishedError)) {
        say(`request ${asked.n}: the answer was not recorded: ${cleanLine(String(error))}`);
      }
    }
    busy = false;
    next();
  };

  function next(): void {
    if (busy || signal.aborted) return;
    const asked = queue.shift();
    if (asked === undefined) return;
    busy = true;
    if (alwaysAllowed.has(asked.tool)) {
      void settle(asked, "allow", `${asked.tool} allowed for the rest of this run`);
      return;
    }
    current = asked;
    say(promptQuestion(asked.n, asked.tool, asked.summary));
    startListening();
  }

  function onKey(chunk: Buffer | string): void {
    const asked = current;
    if (asked === undefined) return;
    for (const key of chunk.toString()) {
      const meaning = promptKey(key);
      if (meaning.kind === "interrupt") {
        stopListening();
        process.kill(process.pid, "SIGINT");
        return;
      }
      if (meaning.kind === "help") say(promptHelp(asked.tool));
      if (meaning.kind !== "answer") continue;
      if (meaning.always) alwaysAllowed.add(asked.tool);
      current = undefined;
      stopListening();
      void settle(asked, meaning.decision);
      return;
    }
  }

  try {
    for await (const event of tasks.watch(id, { follow: true, signal })) {
      const n = typeof event.request === "number" ? event.request : undefined;
      if (n === undefined) continue;
      if (event.type === "approval_asked") {
        queue.push({ n, tool: fieldText(event.tool), summary: fieldText(event.summary) });
        next();
      } else if (event.type === "approval_answered") {
        const waiting = queue.findIndex((asked) => asked.n === n);
        if (waiting !== -1) queue.splice(waiting, 1);
        if (current?.n === n) {
          current = undefined;
          busy = false;
          stopListening();
          say(`request ${n} was answered elsewhere: ${cleanLine(fieldText(event.decision))}`);
          next();
        }
      }
    }
  } catch (error) {
    // Aborting the watch is how the run ends the prompt.
    if (!signal.aborted) throw error;
  } finally {
    stopListening();
  }
}
