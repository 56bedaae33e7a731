// Reads the head of one proxy request from a client socket, bounded in size and in time, and
// says whether it is a CONNECT the proxy will consider. Only the request line matters: the
// headers are read past, never forwarded.
import type { Socket } from "node:net";

export type ConnectHead =
  /** A CONNECT request; `rest` holds the bytes the client sent after the head (a TLS hello). */
  | { readonly kind: "connect"; readonly authority: string; readonly rest: Buffer }
  /** A request the proxy answers with `status` and closes. */
  | { readonly kind: "refuse"; readonly status: 400 | 403 | 408 | 431; readonly reason: string }
  /** The client went away before it finished; there is nobody to answer. */
  | { readonly kind: "gone" };

const REQUEST_LINE = /^([A-Za-z]+) ([\x21-\x7e]+) HTTP\/1\.[01]$/;
const HEAD_END = /\r?\n\r?\n/;

/** What the first line of a request asks for, once it is complete. */
function readRequestLine(line: string): ConnectHead | { readonly kind: "more" } {
  const match = REQUEST_LINE.exec(line);
  if (match === null) return { kind: "refuse", status: 400, reason: "not an HTTP/1 request line" };
  if (match[1] !== "CONNECT") {
    return {
      kind: "refuse",
      status: 403,
      reason: "the proxy serves only CONNECT (https://); plain http:// is not forwarded",
    };
  }
  return { kind: "more" };
}

export function readConnectHead(
  socket: Socket,
  limits: { readonly maxBytes: number; readonly timeoutMs: number },
): Promise<ConnectHead> {
  return new Promise((resolve) => {
    let buffered = Buffer.alloc(0);
    let lineChecked = false;
    const finish = (head: ConnectHead): void => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onGone);
      socket.off("error", onGone);
      socket.off("close", onGone);
      socket.pause();
      resolve(head);
    };
    const onGone = (): void => {
      finish({ kind: "gone" });
    };
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      // latin1 maps each byte to one character, so string offsets are byte offsets.
      const text = buffered.toString("latin1", 0, Math.min(buffered.length, limits.maxBytes + 4));
      if (!lineChecked) {
        const newline = text.indexOf("\n");
        if (newline >= 0) {
          const verdict = readRequestLine(text.slice(0, newline).replace(/\r$/, ""));
          if (verdict.kind !== "more") {
            finish(verdict);
            return;
          }
          lineChecked = true;
        }
      }
      const end = HEAD_END.exec(text);
      if (end !== null && end.index + end[0].length <= limits.maxBytes) {
        const line = text.slice(0, text.indexOf("\n")).replace(/\r$/, "");
        const authority = line.split(" ")[1] ?? "";
        finish({ kind: "connect", authority, rest: buffered.subarray(end.index + end[0].length) });
        return;
      }
      if (buffered.length > limits.maxBytes) {
        finish({
          kind: "refuse",
          status: 431,
          reason: `the request head is over ${limits.maxBytes} bytes`,
        });
      }
    };
    const timer = setTimeout(() => {
      finish({
        kind: "refuse",
        status: 408,
        reason: `the request head took over ${limits.timeoutMs} ms`,
      });
    }, limits.timeoutMs);
    socket.on("data", onData);
    socket.once("end", onGone);
    socket.once("error", onGone);
    socket.once("close", onGone);
    socket.resume();
  });
}
