// Reading an agent's JSON-lines stream, the same for every agent. Every line came from the
// sandbox, so nothing is assumed: a line that is too long, not JSON or not an object reads as
// nothing and is counted, and a field of the wrong type reads as absent rather than spoiling
// the line. What is left to each agent is what its lines mean.
import { z } from "zod";
import { memo } from "../lang/index.js";
import type { AgentEvent, StreamReader } from "./agentEvent.js";
import { AGENT_EVENT_LIMITS } from "./limits.js";

export type JsonObject = Readonly<Record<string, unknown>>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// The schemas here and in each agent's lines.ts are made on their first use (memo): a command
// that only asks which agents take messages loads this folder and should not build them.

/** A string field, or absent when it is missing or not a string. */
export const lenientText = memo(() => z.string().optional().catch(undefined));

/** A whole count a JavaScript number holds exactly, or absent. */
export const lenientCount = memo(() =>
  z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional().catch(undefined),
);

/** One line of a stream as a JSON object; undefined when it is too long, not JSON or no object. */
export function readJsonObject(raw: string): JsonObject | undefined {
  const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
  // A string's UTF-16 length is at least a third of its UTF-8 bytes: the cheap check first.
  if (line.length > AGENT_EVENT_LIMITS.lineBytes) return undefined;
  if (Buffer.byteLength(line) > AGENT_EVENT_LIMITS.lineBytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  return isObject(value) ? value : undefined;
}

/** Parses one line of a JSON-lines stream against `schema`; undefined when it cannot be read. */
export function readStreamLine<T>(raw: string, schema: z.ZodType<T>): T | undefined {
  const value = readJsonObject(raw);
  if (value === undefined) return undefined;
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * What every agent's stream reader does the same way: it reads each line with `parse`, counts
 * the lines it could not read, and keeps the turn that is open. A subclass says what a line
 * means. Stateful and pure; never throws.
 */
export abstract class JsonLinesReader<Line> implements StreamReader {
  /** The number of the turn that is open, if one is. */
  protected openTurn: number | undefined;
  private unreadable = 0;

  constructor(private readonly parse: (raw: string) => Line | undefined) {}

  /** How many lines could not be read (not JSON, not an object, too long). */
  get unreadableLines(): number {
    return this.unreadable;
  }

  line(raw: string): AgentEvent[] {
    const line = this.parse(raw);
    if (line === undefined) {
      if (raw.trim() !== "") this.unreadable += 1;
      return [];
    }
    return this.read(line);
  }

  end(): AgentEvent[] {
    return this.closeTurn();
  }

  /** The events one line that could be read says. */
  protected abstract read(line: Line): AgentEvent[];

  /** Opens turn `turn`. */
  protected startTurn(turn: number): AgentEvent {
    this.openTurn = turn;
    return { type: "turn_started", turn };
  }

  /** Ends the open turn, if there is one. */
  protected closeTurn(): AgentEvent[] {
    if (this.openTurn === undefined) return [];
    const turn = this.openTurn;
    this.openTurn = undefined;
    return [{ type: "turn_ended", turn }];
  }
}
