// What the scripted model APIs share: what they keep of each request, how they read its body,
// and the usage an answer reports, so a test asserts the same way whichever agent ran.
import type { IncomingMessage } from "node:http";

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body parsed as JSON, when it was JSON. */
  readonly body: unknown;
}

/** Bodies larger than this are refused: no test sends more. */
const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** The request's body parsed as JSON, or undefined when it is not JSON. */
export async function readJsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error("request body too large");
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8")) as unknown;
  } catch {
    return undefined;
  }
}

/** Token counts for one scripted answer. */
export interface ScriptedUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/** The usage of a scripted answer that names none. */
export const DEFAULT_USAGE: ScriptedUsage = { inputTokens: 100, outputTokens: 20 };
