// Random names and markers, drawn from the kernel's generator (/dev/urandom) with two plain
// reads. node:crypto would draw on the same source, but loading it costs a Node process about
// 5 ms (it sets up OpenSSL's ciphers and the web crypto API), and the runner would pay that in
// every sandbox for sixteen bytes.
import { closeSync, openSync, readSync } from "node:fs";

/** The kernel's generator: never blocks once the system has booted, as getrandom(2) does not. */
const URANDOM = "/dev/urandom";

/** Fills `buffer` from /dev/urandom; false when it cannot be opened (a system without /dev). */
function readUrandom(buffer: Buffer): boolean {
  let fd: number;
  try {
    fd = openSync(URANDOM, "r");
  } catch {
    return false;
  }
  try {
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, null);
      if (read === 0) throw new Error(`${URANDOM} ended before ${buffer.length} bytes`);
      filled += read;
    }
    return true;
  } finally {
    closeSync(fd);
  }
}

/** `bytes` random bytes as lowercase hex (twice as many characters). */
export function randomHex(bytes: number): string {
  const buffer = Buffer.alloc(bytes);
  // Web crypto is the fallback: a global of Node's own, it needs no import of node:crypto.
  if (!readUrandom(buffer)) globalThis.crypto.getRandomValues(buffer);
  return buffer.toString("hex");
}
