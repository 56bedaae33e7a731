// A relay started in front of a scripted upstream for one test, and the answer it gives read
// whole: what the relay tests share.
import type { IncomingHttpHeaders, IncomingMessage, Server } from "node:http";
import { join } from "node:path";
import { startRelay } from "../../src/egress/index.js";
import type { RelayOptions } from "../../src/egress/startRelay.js";
import { closeServer, listen, tempDir } from "./localPeers.js";

export interface Answer {
  readonly status: number;
  readonly statusMessage: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  readonly body: string;
}

/** Reads a whole answer; `latin1` keeps every byte of a body that may not be UTF-8. */
export function readAnswer(
  res: IncomingMessage,
  encoding: BufferEncoding = "utf8",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on("data", (chunk: Buffer) => chunks.push(chunk));
    res.on("error", reject);
    res.on("end", () => {
      resolve({
        status: res.statusCode ?? 0,
        statusMessage: res.statusMessage ?? "",
        headers: res.headers,
        rawHeaders: res.rawHeaders,
        body: Buffer.concat(chunks).toString(encoding),
      });
    });
  });
}

export interface RelayOverOptions extends Omit<RelayOptions, "socketPath" | "upstream"> {
  /** The path the upstream URL ends in, as a configured upstream may. */
  prefix?: string;
  /** Close the upstream before the relay starts: an upstream that is down. */
  down?: boolean;
}

/**
 * Starts a relay in front of `upstream` (listening on a free loopback port), runs `body` with
 * the relay's socket, then takes both down, also when `body` fails. `beforeClose` runs first
 * in the take-down: a test that holds a stream lets it go there.
 */
export async function withRelayOver<U extends { server: Server }>(
  upstream: U,
  options: RelayOverOptions,
  body: (socketPath: string, upstream: U) => Promise<void>,
  beforeClose: () => void = () => undefined,
): Promise<void> {
  const dir = await tempDir();
  const port = await listen(upstream.server, 0);
  const { prefix = "", down = false, ...relayOptions } = options;
  if (down) await closeServer(upstream.server);
  const socketPath = join(dir.path, "relay.sock");
  const relay = await startRelay({
    ...relayOptions,
    socketPath,
    upstream: `http://127.0.0.1:${port}${prefix}`,
  });
  try {
    await body(socketPath, upstream);
  } finally {
    beforeClose();
    await relay.close();
    if (!down) {
      upstream.server.closeAllConnections();
      await closeServer(upstream.server);
    }
    await dir.remove();
  }
}
