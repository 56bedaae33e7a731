// Task ids: ULIDs in lowercase Crockford base32. Ten characters of milliseconds, then sixteen of
// randomness, so ids sort by creation time and two creators never collide in practice.
import { randomBytes } from "node:crypto";
import { TASK_ID } from "../protocol/index.js";

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const TIME_CHARS = 10;
const RANDOM_CHARS = 16;
/** The largest time a ULID holds: 48 bits of milliseconds. */
const MAX_TIME = 2 ** 48 - 1;

export function isTaskId(value: string): boolean {
  return TASK_ID.test(value);
}

/** The creation time an id carries, in ms since the epoch. */
export function timeOfId(id: string): number {
  let time = 0;
  for (const char of id.slice(0, TIME_CHARS)) time = time * 32 + ALPHABET.indexOf(char);
  return time;
}

/** Whether `text` uses only characters a task id can have (a candidate prefix). */
export function isIdAlphabet(text: string): boolean {
  for (const char of text) if (!ALPHABET.includes(char)) return false;
  return true;
}

function encodeTime(time: number): string {
  let out = "";
  let rest = time;
  for (let i = 0; i < TIME_CHARS; i++) {
    out = (ALPHABET[rest % 32] ?? "0") + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/**
 * Makes ids for one store instance. Within the instance ids strictly increase: an id made in the
 * same millisecond as the last one (or after the clock stepped back) is the last one plus one in
 * its random part, as the ULID specification's monotonic mode does.
 */
export class IdGenerator {
  #lastTime = -1;
  /** The random part of the last id, one base-32 digit per entry. */
  #lastRandom: number[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  next(): string {
    const time = Math.max(0, Math.min(MAX_TIME, Math.floor(this.now())));
    if (time > this.#lastTime || this.#lastRandom.length === 0) {
      const bytes = randomBytes(RANDOM_CHARS);
      this.#lastRandom = Array.from(bytes, (b) => b & 31);
      this.#lastTime = time;
    } else if (!this.#increment()) {
      // 80 bits ran over within one millisecond: take the next millisecond instead.
      this.#lastTime += 1;
      this.#lastRandom = Array.from(randomBytes(RANDOM_CHARS), (b) => b & 31);
    }
    return encodeTime(this.#lastTime) + this.#lastRandom.map((d) => ALPHABET[d]).join("");
  }

  #increment(): boolean {
    for (let i = this.#lastRandom.length - 1; i >= 0; i--) {
      const digit = this.#lastRandom[i] ?? 0;
      if (digit < 31) {
        this.#lastRandom[i] = digit + 1;
        return true;
      }
      this.#lastRandom[i] = 0;
    }
    return false;
  }
}
