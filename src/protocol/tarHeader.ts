// One 512-byte tar header from a possibly hostile producer, read strictly. The results archive
// only ever holds regular files with short bare names, so this reads ustar (POSIX or GNU magic)
// regular-file headers and names every other kind of entry so the caller can refuse it. No pax or
// GNU extension header is read: they could rename an entry or change its size after the fact,
// and the guest never writes one.
import { BadResultsError } from "./errors.js";
import { quote } from "./quote.js";

export const BLOCK = 512;

export type TarHeader =
  | { kind: "end" }
  | { kind: "file"; name: Buffer; size: number }
  | { kind: "other"; what: string; name: Buffer };

const POSIX_MAGIC = Buffer.from("ustar\x0000", "latin1");
const GNU_MAGIC = Buffer.from("ustar  \x00", "latin1");

/** What each typeflag other than a regular file is, for the refusal. */
const KINDS: ReadonlyMap<string, string> = new Map([
  ["1", "a hard link"],
  ["2", "a symbolic link"],
  ["3", "a character device"],
  ["4", "a block device"],
  ["5", "a directory"],
  ["6", "a FIFO"],
  ["7", "a contiguous file"],
  ["x", "a pax extended header"],
  ["g", "a pax global header"],
  ["L", "a GNU long name"],
  ["K", "a GNU long link name"],
]);

export function notTar(message: string): BadResultsError {
  return new BadResultsError(`the results are not a tar archive warden takes: ${message}`, {
    hint: "the sandbox sent bytes that are not a results archive; see the guest log",
  });
}

/** The bytes of a NUL-terminated field. */
function field(block: Buffer, start: number, length: number): Buffer {
  const value = block.subarray(start, start + length);
  const nul = value.indexOf(0);
  return nul === -1 ? value : value.subarray(0, nul);
}

/**
 * A number field: octal digits after optional spaces, ended by a NUL or a space and nothing but
 * NULs and spaces after; or base-256 (first byte 0x80), which tar uses for sizes over 8 GiB.
 * Returns undefined for anything else, a negative base-256 number included. A base-256 number
 * past 2^53 comes back rounded, which is still far over every limit.
 */
export function readNumber(block: Buffer, start: number, length: number): number | undefined {
  const bytes = block.subarray(start, start + length);
  if (bytes[0] === 0x80) {
    let value = 0;
    for (let i = 1; i < bytes.length; i++) value = value * 256 + (bytes[i] ?? 0);
    return value;
  }
  let i = 0;
  while (i < bytes.length && bytes[i] === 0x20) i++;
  let value = 0;
  let digits = 0;
  for (; i < bytes.length; i++) {
    const b = bytes[i] ?? 0;
    if (b < 0x30 || b > 0x37) break;
    value = value * 8 + (b - 0x30);
    digits++;
  }
  if (digits === 0) return undefined;
  for (; i < bytes.length; i++) {
    const b = bytes[i];
    if (b !== 0 && b !== 0x20) return undefined;
  }
  return value;
}

function checksum(block: Buffer): number {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] ?? 0);
  return sum;
}

function isZero(block: Buffer): boolean {
  for (let i = 0; i < BLOCK; i++) if (block[i] !== 0) return false;
  return true;
}

/** Reads one header block. Throws BadResultsError for a block that is not a ustar header. */
export function readTarHeader(block: Buffer): TarHeader {
  if (isZero(block)) return { kind: "end" };
  if (readNumber(block, 148, 8) !== checksum(block)) throw notTar("a header checksum is wrong");
  const magic = block.subarray(257, 265);
  const posix = magic.equals(POSIX_MAGIC);
  if (!posix && !magic.equals(GNU_MAGIC)) throw notTar("a header is not ustar");
  let name = field(block, 0, 100);
  // POSIX ustar puts a directory prefix at 345; GNU keeps other fields there.
  if (posix) {
    const prefix = field(block, 345, 155);
    if (prefix.length > 0) name = Buffer.concat([prefix, Buffer.from("/"), name]);
  }
  const flag = String.fromCharCode(block[156] ?? 0);
  if (flag !== "0" && flag !== "\0") {
    return { kind: "other", what: KINDS.get(flag) ?? `an entry of type ${quote(flag)}`, name };
  }
  const size = readNumber(block, 124, 12);
  if (size === undefined) throw notTar(`the entry ${quote(name)} has a malformed size`);
  return { kind: "file", name, size };
}
