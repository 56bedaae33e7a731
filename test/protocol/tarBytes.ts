// Hand-made tar bytes for tests: headers tar-stream would never write, with a correct checksum
// unless a test asks for a wrong one.
import { Readable } from "node:stream";

export const BLOCK = 512;

export interface HeaderFields {
  name: string | Uint8Array;
  size?: number;
  /** The raw 12 bytes of the size field, for sizes tar-stream would not write. */
  sizeField?: Uint8Array;
  /** The typeflag character: "0" for a file, "2" for a symlink, "x" for pax... */
  type?: string;
  linkname?: string;
  prefix?: string;
  /** "posix" (ustar\0 00), "gnu" (ustar  \0) or "none" (no magic, as old tar). */
  magic?: "posix" | "gnu" | "none";
  /** Added to the right checksum, to make a wrong one. */
  checksumError?: number;
}

function put(block: Uint8Array, offset: number, text: string | Uint8Array, max: number): void {
  const bytes = typeof text === "string" ? Buffer.from(text, "utf8") : text;
  block.set(bytes.subarray(0, max), offset);
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

/** One 512-byte header. */
export function header(fields: HeaderFields): Buffer {
  const block = Buffer.alloc(BLOCK);
  put(block, 0, fields.name, 100);
  put(block, 100, octal(0o600, 8), 8);
  put(block, 108, octal(0, 8), 8);
  put(block, 116, octal(0, 8), 8);
  if (fields.sizeField !== undefined) put(block, 124, fields.sizeField, 12);
  else put(block, 124, octal(fields.size ?? 0, 12), 12);
  put(block, 136, octal(0, 12), 12);
  put(block, 156, fields.type ?? "0", 1);
  if (fields.linkname !== undefined) put(block, 157, fields.linkname, 100);
  const magic = fields.magic ?? "posix";
  if (magic === "posix") put(block, 257, "ustar\x0000", 8);
  if (magic === "gnu") put(block, 257, "ustar  \x00", 8);
  if (fields.prefix !== undefined) put(block, 345, fields.prefix, 155);
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of block) sum += b;
  put(block, 148, octal(sum + (fields.checksumError ?? 0), 7) + " ", 8);
  return block;
}

/** A body padded to whole blocks. */
export function body(bytes: string | Uint8Array): Buffer {
  const data = typeof bytes === "string" ? Buffer.from(bytes) : Buffer.from(bytes);
  const padded = Buffer.alloc(Math.ceil(data.length / BLOCK) * BLOCK);
  data.copy(padded);
  return padded;
}

/** A whole regular-file entry. */
export function file(name: string, content: string | Uint8Array): Buffer {
  const data = typeof content === "string" ? Buffer.from(content) : content;
  return Buffer.concat([header({ name, size: data.length }), body(data)]);
}

/** The two zero blocks that end a tar. */
export const END = Buffer.alloc(2 * BLOCK);

/** A base-256 size field, as tar writes sizes of 8 GiB and more. */
export function base256(value: bigint): Uint8Array {
  const field = new Uint8Array(12);
  field[0] = 0x80;
  let v = value;
  for (let i = 11; i > 0; i--) {
    field[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return field;
}

/** A producer that gives `chunks` one by one, then fails as a sandbox that died mid-archive. */
export function dyingProducer(chunks: Buffer[]): Readable {
  const left = [...chunks];
  return new Readable({
    read() {
      const chunk = left.shift();
      if (chunk === undefined) this.destroy(new Error("the sandbox died"));
      else this.push(chunk);
    },
  });
}
