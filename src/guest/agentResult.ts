// The agent's last stdout line as result.agentResult: only a JSON object within the limit, so
// a result.json never carries a stray line of output or something too big for the host.
import { LIMITS } from "../protocol/index.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

export function agentResultOf(line: Buffer | undefined): Record<string, unknown> | undefined {
  if (line === undefined || line.length > LIMITS.agentResultBytes) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(line));
  } catch {
    return undefined;
  }
  return agentResultObject(value);
}

/** A value as result.agentResult may hold it: a JSON object within the limit, else undefined. */
export function agentResultObject(value: unknown): Record<string, unknown> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  // The schema measures the object as JSON.stringify writes it, which may differ from the line.
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    return undefined;
  }
  if (Buffer.byteLength(json) > LIMITS.agentResultBytes) return undefined;
  return value as Record<string, unknown>;
}
