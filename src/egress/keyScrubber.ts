// Keeps the real key out of the upstream's answers: an upstream that echoes the credential it
// was sent (an error that quotes it, a gateway that reflects the request) must not hand it to
// the sandbox. Every form of the key the upstream might write is overwritten, in the status
// line, in the headers, and in the body as it streams, without holding the body back.
import type { OutgoingHttpHeaders } from "node:http";
import { Transform, type TransformCallback } from "node:stream";
import { BadRelaySettingError } from "./errors.js";
import { EGRESS_LIMITS } from "./limits.js";

/**
 * The bytes the forms of the key are overwritten with, one for one: the first of these that no
 * form holds, `*` for every usual key. A byte no form holds can never be part of an occurrence,
 * so the overwritten answer cannot hold the key again, whatever surrounds the marker; one for
 * one keeps the answer's length, so its Content-Length stays true. None of them means anything
 * inside a JSON string or a header, nor separates anything in a URL.
 */
const MARKER_CANDIDATES = Buffer.from(
  "*~!^|$0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
  "latin1",
);

/** The base64 characters that only the key's bytes decide, when it starts `offset` bytes in. */
function base64Core(key: Buffer, offset: number): string {
  const encoded = Buffer.concat([Buffer.alloc(offset), key]).toString("base64");
  const first = Math.ceil((8 * offset) / 6);
  const end = Math.floor((8 * (offset + key.length)) / 6);
  return encoded.slice(first, end);
}

/**
 * The forms of the key an upstream might echo: the key itself; as it stands inside a JSON
 * string; percent-encoded (both cases of hex); and its base64 text (standard and URL-safe, at
 * each of the three alignments inside a longer base64 run) when that is long enough not to
 * match unrelated base64 data. Forms that come out the same are kept once. Pure.
 */
export function keyForms(key: string): Buffer[] {
  const raw = Buffer.from(key, "utf8");
  const texts = [
    key,
    JSON.stringify(key).slice(1, -1),
    encodeURIComponent(key),
    encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
  ];
  for (const offset of [0, 1, 2]) {
    const core = base64Core(raw, offset);
    if (core.length < EGRESS_LIMITS.relayEncodedKeyMinChars) continue;
    texts.push(core, core.replaceAll("+", "-").replaceAll("/", "_"));
  }
  return [...new Set(texts)].filter((text) => text !== "").map((text) => Buffer.from(text, "utf8"));
}

/** Where the scan of one buffer stopped. */
interface Scanned {
  /** What may go to the sandbox now. */
  readonly out: Buffer;
  /** The end of the buffer that may be the start of a form: kept until the next bytes come. */
  readonly rest: Buffer;
}

const EMPTY: Buffer = Buffer.alloc(0);

/** The key's forms, with the marker byte they are overwritten with. Immutable. */
export class KeyScrubber {
  readonly #forms: readonly Buffer[];
  readonly #marker: number;
  readonly #longest: number;
  /** Which bytes start a form: a position any other byte is at cannot start one. */
  readonly #starts = new Uint8Array(256);

  /** Throws BadRelaySettingError when the key's forms hold every marker candidate. */
  constructor(key: string) {
    this.#forms = keyForms(key);
    const marker = MARKER_CANDIDATES.find((byte) => this.#forms.every((f) => !f.includes(byte)));
    if (marker === undefined) {
      throw new BadRelaySettingError(
        "the API key holds every character the relay marks echoes with",
        {
          hint: "check the key variable on the host; an API key is a short run of letters and digits",
        },
      );
    }
    this.#marker = marker;
    this.#longest = Math.max(...this.#forms.map((form) => form.length));
    for (const form of this.#forms) this.#starts[form[0] ?? 0] = 1;
  }

  /**
   * The smallest position from `from` on where the rest of `buf` is a proper start of a form,
   * so the next bytes could complete it; `buf.length` when there is none.
   */
  #partialStart(buf: Buffer, from: number): number {
    for (let at = Math.max(from, buf.length - this.#longest + 1); at < buf.length; at++) {
      if (this.#starts[buf[at] ?? 0] !== 1) continue;
      const left = buf.length - at;
      for (const form of this.#forms) {
        if (form.length > left && buf.compare(form, 0, left, at) === 0) return at;
      }
    }
    return buf.length;
  }

  /** The earliest form in `buf` that starts in [from, before), the longest one at a tie. */
  #firstMatch(buf: Buffer, from: number, before: number): { at: number; length: number } | null {
    let found: { at: number; length: number } | null = null;
    for (const form of this.#forms) {
      const at = buf.indexOf(form, from);
      if (at === -1 || at >= before) continue;
      if (found === null || at < found.at || (at === found.at && form.length > found.length)) {
        found = { at, length: form.length };
      }
    }
    return found;
  }

  /**
   * Overwrites every form in `buf`. Unless `final`, the end of `buf` that could be the start of
   * a form is kept back as `rest`, to be scanned again in front of the next bytes; bytes that
   * cannot start a form (the `\n\n` that ends a server-sent event) are never held back.
   */
  scan(buf: Buffer, final: boolean): Scanned {
    const pieces: Buffer[] = [];
    let cursor = 0;
    for (;;) {
      // Every match that starts before `hold` is complete within `buf`: a form that could
      // start there and run past the end would have made that position the hold.
      const hold = final ? buf.length : this.#partialStart(buf, cursor);
      const match = this.#firstMatch(buf, cursor, hold);
      if (match === null) {
        pieces.push(buf.subarray(cursor, hold));
        const out = pieces.length === 1 ? (pieces[0] ?? EMPTY) : Buffer.concat(pieces);
        return { out, rest: buf.subarray(hold) };
      }
      pieces.push(buf.subarray(cursor, match.at), Buffer.alloc(match.length, this.#marker));
      cursor = match.at + match.length;
    }
  }

  /** The text with every form overwritten; for a header or a status line, read as latin1. */
  text(value: string): string {
    return this.scan(Buffer.from(value, "latin1"), true).out.toString("latin1");
  }

  /**
   * The headers with every form overwritten in their values. A header whose name holds a form
   * (in any case: Node lowercases the names) is dropped.
   */
  headers(headers: OutgoingHttpHeaders): OutgoingHttpHeaders {
    const lowered = this.#forms.map((form) => form.toString("latin1").toLowerCase());
    const out: OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(headers)) {
      if (value === undefined || lowered.some((form) => name.toLowerCase().includes(form))) {
        continue;
      }
      out[name] =
        typeof value === "number"
          ? value
          : Array.isArray(value)
            ? value.map((item) => this.text(item))
            : this.text(value);
    }
    return out;
  }

  /** A stream that passes a body on chunk by chunk with every form overwritten. */
  body(): Transform {
    let rest: Buffer = EMPTY;
    const pass = (buf: Buffer, final: boolean, done: TransformCallback): void => {
      const scanned = this.scan(buf, final);
      rest = scanned.rest;
      done(null, scanned.out.length === 0 ? undefined : scanned.out);
    };
    return new Transform({
      transform(chunk: Buffer, _encoding, done) {
        pass(rest.length === 0 ? chunk : Buffer.concat([rest, chunk]), false, done);
      },
      flush(done) {
        pass(rest, true, done);
      },
    });
  }
}
