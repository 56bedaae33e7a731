// The header of a git bundle, read without git: the host learns what a bundle from the sandbox
// claims to hold before any git touches it. Everything here is parsed strictly, and anything git
// would read differently (a tab, a capability after a ref, an oid in upper case) is refused.
import { open } from "node:fs/promises";
import { constants } from "node:fs";
import type { Readable } from "node:stream";
import { BadBundleError } from "./errors.js";
import { LIMITS } from "./limits.js";
import { quote } from "./quote.js";

export interface BundleHeader {
  version: 2 | 3;
  objectFormat: "sha1" | "sha256";
  /** The commits the bundle needs and does not carry. */
  prerequisites: string[];
  /** Ref name to object id, in the order of the header. */
  refs: Map<string, string>;
  /** The bytes of the header, its blank line included: the bundle's pack starts there. */
  packOffset: number;
}

const SIGNATURES: ReadonlyMap<string, 2 | 3> = new Map([
  ["# v2 git bundle", 2],
  ["# v3 git bundle", 3],
]);
const SIGNATURE_BYTES = 15;
const OID_LENGTH = { sha1: 40, sha256: 64 } as const;
const HEX = /^[0-9a-f]+$/;
// A ref name is one word of printable text: git's own ref names never have a space or a control.
const BAD_REF_CHAR = /[\0-\x20\x7f-\x9f]/;

/** The most bytes a header can take: the signature, the lines with their newlines, the blank line. */
export const MAX_BUNDLE_HEADER_BYTES =
  SIGNATURE_BYTES + 1 + LIMITS.bundleHeaderLines * (LIMITS.bundleHeaderLineBytes + 1) + 1;

const utf8 = new TextDecoder("utf-8", { fatal: true });

function fail(message: string): BadBundleError {
  return new BadBundleError(message, {
    hint: "the sandbox sent a bundle warden does not take; see the guest log",
  });
}

/**
 * Reads a header incrementally from chunks. It keeps at most one line in memory, and says it
 * is done at the blank line so that the caller stops reading there.
 */
class HeaderParser {
  private version: 2 | 3 | undefined;
  private objectFormat: "sha1" | "sha256" | undefined;
  private readonly prerequisites: string[] = [];
  private readonly refs = new Map<string, string>();
  private lineCount = 0;
  private bytesRead = 0;
  private partial: Uint8Array[] = [];
  private partialBytes = 0;
  private done = false;

  /** Feeds bytes; returns true once the blank line that ends the header has been read. */
  push(chunk: Uint8Array): boolean {
    let start = 0;
    while (!this.done && start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      // A copy (the caller may reuse its buffer), of no more than one byte past the line limit.
      const kept = Math.min(end, start + this.maxLineBytes() + 1 - this.partialBytes);
      this.partial.push(Buffer.from(chunk.subarray(start, kept)));
      this.partialBytes += kept - start;
      this.checkLength();
      if (newline === -1) break;
      const line = Buffer.concat(this.partial, this.partialBytes);
      this.partial = [];
      this.partialBytes = 0;
      this.line(line);
      start = newline + 1;
    }
    return this.done;
  }

  /** The header, once the blank line has been read; throws when the bytes ended before it. */
  finish(): BundleHeader {
    if (this.version === undefined) {
      throw fail(this.partialBytes === 0 ? "the bundle is empty" : "this is not a git bundle");
    }
    if (!this.done) throw fail("the bundle header ends before its blank line");
    return {
      version: this.version,
      objectFormat: this.objectFormat ?? "sha1",
      prerequisites: this.prerequisites,
      refs: this.refs,
      packOffset: this.bytesRead,
    };
  }

  private maxLineBytes(): number {
    return this.version === undefined ? SIGNATURE_BYTES : LIMITS.bundleHeaderLineBytes;
  }

  private checkLength(): void {
    if (this.partialBytes <= this.maxLineBytes()) return;
    if (this.version === undefined) throw fail("this is not a git bundle");
    throw fail(`a bundle header line is over ${LIMITS.bundleHeaderLineBytes} bytes`);
  }

  private line(bytes: Buffer): void {
    // A line that reaches here is whole and within its limit, so this counts every byte read.
    this.bytesRead += bytes.length + 1;
    if (this.version === undefined) {
      const version = SIGNATURES.get(bytes.toString("latin1"));
      if (version === undefined) throw fail("this is not a git bundle of version 2 or 3");
      this.version = version;
      return;
    }
    if (bytes.length === 0) {
      this.done = true;
      return;
    }
    this.lineCount += 1;
    if (this.lineCount > LIMITS.bundleHeaderLines) {
      throw fail(`the bundle header has more than ${LIMITS.bundleHeaderLines} lines`);
    }
    let text: string;
    try {
      text = utf8.decode(bytes);
    } catch {
      throw fail(`a bundle header line is not UTF-8: ${quote(bytes)}`);
    }
    if (text.startsWith("@")) this.capability(text);
    else if (text.startsWith("-")) this.prerequisite(text);
    else this.ref(text);
  }

  private capability(text: string): void {
    // git writes capabilities first; one after a ref could change how git reads the lines before.
    if (this.version !== 3 || this.prerequisites.length > 0 || this.refs.size > 0) {
      throw fail(`a bundle capability where none may be: ${quote(text)}`);
    }
    if (this.objectFormat !== undefined) throw fail("the bundle names its object format twice");
    if (text === "@object-format=sha1") this.objectFormat = "sha1";
    else if (text === "@object-format=sha256") this.objectFormat = "sha256";
    else throw fail(`the bundle has a capability warden does not take: ${quote(text)}`);
  }

  private prerequisite(text: string): void {
    if (this.refs.size > 0) throw fail("a bundle prerequisite after its refs");
    const space = text.indexOf(" ");
    // What follows the space is the commit's subject, which nothing reads.
    const oid = space === -1 ? text.slice(1) : text.slice(1, space);
    this.prerequisites.push(this.oid(oid, text));
  }

  private ref(text: string): void {
    const space = text.indexOf(" ");
    if (space === -1) throw fail(`a bundle ref line without a ref name: ${quote(text)}`);
    const oid = this.oid(text.slice(0, space), text);
    const name = text.slice(space + 1);
    if (name === "" || BAD_REF_CHAR.test(name)) {
      throw fail(`a bundle ref name warden does not take: ${quote(name)}`);
    }
    if (this.refs.has(name)) throw fail(`the bundle has the ref ${quote(name)} twice`);
    this.refs.set(name, oid);
  }

  private oid(oid: string, line: string): string {
    const format = this.objectFormat ?? "sha1";
    if (oid.length !== OID_LENGTH[format] || !HEX.test(oid)) {
      throw fail(`not a ${format} object id in the bundle header: ${quote(line)}`);
    }
    return oid;
  }
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  throw new TypeError("a bundle header is read from bytes, not from a text or object stream");
}

/**
 * Reads the header of a git bundle: from bytes, or from a stream, of which it reads no further
 * than the blank line that ends the header (the rest of the chunk that holds it is dropped) and
 * never more than MAX_BUNDLE_HEADER_BYTES. A stream is destroyed once the header is read or
 * refused. Throws BadBundleError.
 */
export async function readBundleHeader(source: Uint8Array | Readable): Promise<BundleHeader> {
  const parser = new HeaderParser();
  if (source instanceof Uint8Array) {
    parser.push(source);
    return parser.finish();
  }
  try {
    // Leaving the loop, by return or by throw, destroys the stream.
    for await (const chunk of source) {
      if (parser.push(toBytes(chunk))) break;
    }
  } finally {
    source.destroy();
  }
  return parser.finish();
}

/** Reads the header of the bundle at `path` (never following a symlink there), and no more. */
export async function readBundleHeaderFile(path: string): Promise<BundleHeader> {
  const parser = new HeaderParser();
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(64 * 1024);
    let position = 0;
    while (position < MAX_BUNDLE_HEADER_BYTES) {
      const want = Math.min(buffer.length, MAX_BUNDLE_HEADER_BYTES - position);
      const { bytesRead } = await file.read(buffer, 0, want, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      if (parser.push(buffer.subarray(0, bytesRead))) break;
    }
  } finally {
    await file.close();
  }
  return parser.finish();
}
