// What every test of an agent's stream needs: the captured streams (real output of the agents,
// kept in fixtures/ as the golden inputs), feeding lines to a reader and collecting its events,
// and replaying a capture through a live process that writes it in arbitrary chunks.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { AgentEvent, StreamReader } from "../../src/agents/index.js";

const FIXTURES = new URL("fixtures/", import.meta.url);

/** Characters a terminal acts on: C0 and C1 controls, bidi overrides, line separators. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point.
export const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u202e\u2028]/u;

/** The path of a file in fixtures/, by its name with its extension. */
export function fixturePath(file: string): string {
  return fileURLToPath(new URL(file, FIXTURES));
}

/** The text of a file in fixtures/ (a captured stderr, say). */
export function fixtureText(file: string): string {
  return readFileSync(fixturePath(file), "utf8");
}

/** The names (without `.jsonl`) of the captured streams, all of them or one agent's. */
export function capturedStreams(agent?: string): string[] {
  return readdirSync(FIXTURES)
    .filter((file) => file.endsWith(".jsonl"))
    .filter((file) => agent === undefined || file.startsWith(`${agent}-`))
    .map((file) => file.slice(0, -".jsonl".length))
    .sort();
}

/** The lines of a captured stream (`claude-run1`), without their line ends or empty lines. */
export function capturedLines(name: string): string[] {
  return fixtureText(`${name}.jsonl`)
    .split("\n")
    .filter((line) => line !== "");
}

/** The last line of a captured stream, parsed: what `result.agentResult` would hold. */
export function capturedLastLine(name: string): Record<string, unknown> {
  return JSON.parse(capturedLines(name).at(-1) ?? "") as Record<string, unknown>;
}

/** What a reader makes of `lines`, the events of its end included. */
export function readLines(reader: StreamReader, lines: readonly string[]): AgentEvent[] {
  return [...lines.flatMap((line) => reader.line(line)), ...reader.end()];
}

export function ofType<T extends AgentEvent["type"]>(events: readonly AgentEvent[], type: T) {
  return events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);
}

/** How many lines a reader could not read, for a reader that counts them. */
export function unreadableLinesOf(reader: StreamReader): number | undefined {
  const count = (reader as { readonly unreadableLines?: unknown }).unreadableLines;
  return typeof count === "number" ? count : undefined;
}

export interface Replay {
  readonly events: AgentEvent[];
  readonly code: number | null;
}

/**
 * Runs the scripted agent (fixtures/replay-stream.js) on a captured stream: it writes the
 * stream in chunks cut anywhere (`seed` picks where) and exits with `exitCode`. Its stdout is
 * read a line at a time into `reader`.
 */
export async function replayLive(
  name: string,
  reader: StreamReader,
  { seed, exitCode = 0 }: { seed: number; exitCode?: number },
): Promise<Replay> {
  const script = fixturePath("replay-stream.js");
  const args = [script, fixturePath(`${name}.jsonl`), String(exitCode), String(seed)];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  const events: AgentEvent[] = [];
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    events.push(...reader.line(line));
  }
  events.push(...reader.end());
  return { events, code: await exited };
}
