// How `warden exec` and `shell` join a session to this process's own streams: the session's
// output to stdout and stderr as the command wrote it (a terminal needs its escape sequences;
// the person asked to see this command's bytes), its reading paused while a stream is full, and
// this process's stdin sent to the command in frames.
import { FRAME, INSIDE_LIMITS } from "../protocol/index.js";
import type { FrameSocket, SessionOutput } from "../host/index.js";
import { standardError, standardOut } from "./standardStreams.js";

/** The session's output, written here with backpressure on the session's connection. */
export function localOutput(link: FrameSocket): SessionOutput {
  const write = (stream: NodeJS.WriteStream) => (chunk: Buffer) => {
    if (!stream.write(chunk)) {
      link.socket.pause();
      stream.once("drain", () => link.socket.resume());
    }
  };
  return { stdout: write(standardOut.stream()), stderr: write(standardError.stream()) };
}

/** Sends what this process reads on stdin to the session, then its end. */
export function sendStdin(link: FrameSocket, input: NodeJS.ReadStream = process.stdin): void {
  input.on("data", (chunk: Buffer) => {
    for (let at = 0; at < chunk.byteLength; at += INSIDE_LIMITS.frameBytes) {
      if (!link.write(FRAME.stdin, chunk.subarray(at, at + INSIDE_LIMITS.frameBytes))) {
        input.pause();
        link.socket.once("drain", () => input.resume());
      }
    }
  });
  input.once("end", () => link.write(FRAME.stdinEnd));
  void link.closed.then(() => input.destroy());
}
