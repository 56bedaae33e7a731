// A terminal's input for the tests of the foreground approval prompt: it records its raw mode and
// types the keys it is given; and a wait for what the prompt does in answer.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";

export class FakeInput extends EventEmitter {
  raw = false;
  setRawMode(raw: boolean): void {
    this.raw = raw;
  }
  resume(): void {}
  pause(): void {}
  type(keys: string): void {
    this.emit("data", Buffer.from(keys));
  }
}

/** Waits until `check` holds, looking every 10 ms for 5 s, and fails if it never does. */
export async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 500 && !(await check()); i++) await new Promise((r) => setTimeout(r, 10));
  assert.ok(await check(), "it happened in time");
}
