// The setup's snapshot read as hostile input: every rule of its layout refuses the whole tar, and
// a tar that keeps them all is read with its files, links and deletions.
import { strict as assert } from "node:assert";
import { Readable } from "node:stream";
import { describe, test } from "node:test";
import { pack as tarPack, type Header } from "tar-stream";
import { BadSnapshotError, readSnapshot } from "../../src/protocol/index.js";

type Entry = Partial<Header> & { name: string; body?: string };

/** The bytes of a tar holding `entries`, in order. */
async function tarOf(entries: readonly Entry[]): Promise<Buffer> {
  const pack = tarPack();
  const chunks: Buffer[] = [];
  for (const { body, ...header } of entries) {
    if (body === undefined) pack.entry(header);
    else pack.entry(header, body);
  }
  pack.finalize();
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function refused(entries: readonly Entry[], pattern: RegExp, options = {}): Promise<void> {
  await assert.rejects(readSnapshot(Readable.from([await tarOf(entries)]), options), (error) => {
    assert.ok(error instanceof BadSnapshotError, String(error));
    assert.equal(error.code, "BAD_SNAPSHOT");
    assert.match(error.message, pattern);
    return true;
  });
}

describe("a setup snapshot", () => {
  test("a tar of files, directories, links inside the workspace and deletions is read whole", async () => {
    const summary = await readSnapshot(
      Readable.from([
        await tarOf([
          { name: "deletions.json", body: JSON.stringify(["old.txt"]) },
          { name: "files/node_modules", type: "directory", mode: 0o755 },
          { name: "files/node_modules/a.js", body: "a", mode: 0o644 },
          { name: "files/node_modules/.bin/a", type: "symlink", linkname: "../a.js" },
        ]),
      ]),
    );
    assert.deepEqual(summary, {
      files: 1,
      directories: 1,
      symlinks: 1,
      deletions: ["old.txt"],
      bytes: 1,
    });
  });

  test("a path with .. is refused", async () => {
    await refused([{ name: "files/../../etc/passwd", body: "x" }], /not plain/);
  });

  test("an absolute path is refused", async () => {
    await refused([{ name: "/etc/passwd", body: "x" }], /outside files/);
    await refused([{ name: "files//etc/passwd", body: "x" }], /not plain|absolute/);
  });

  test("a link that points out of the workspace is refused, relative or absolute", async () => {
    await refused([{ name: "files/out", type: "symlink", linkname: "../../.." }], /points out/);
    await refused([{ name: "files/out", type: "symlink", linkname: "/etc" }], /points out/);
  });

  test("an entry under a link is refused, whichever comes first", async () => {
    await refused(
      [
        { name: "files/dir", type: "symlink", linkname: "sub" },
        { name: "files/dir/x", body: "x" },
      ],
      /under a link/,
    );
    await refused(
      [
        { name: "files/dir/x", body: "x" },
        { name: "files/dir", type: "symlink", linkname: "sub" },
      ],
      /under a link/,
    );
  });

  test("devices, fifos and hard links are refused", async () => {
    await refused(
      [{ name: "files/dev", type: "character-device", devmajor: 1, devminor: 3 }],
      /character-device/,
    );
    await refused([{ name: "files/pipe", type: "fifo" }], /fifo/);
    await refused([{ name: "files/hard", type: "link", linkname: "files/a" }], /link, not/);
  });

  test("a setuid, setgid or sticky file is refused", async () => {
    await refused([{ name: "files/su", body: "x", mode: 0o4755 }], /setuid/);
    await refused([{ name: "files/sg", body: "x", mode: 0o2755 }], /setuid/);
  });

  test("git's own files are refused", async () => {
    await refused([{ name: "files/.git/hooks/pre-commit", body: "x" }], /git's own/);
  });

  test("a name twice, or a second deletions.json, is refused", async () => {
    await refused(
      [
        { name: "files/a", body: "1" },
        { name: "files/a", body: "2" },
      ],
      /twice/,
    );
    await refused(
      [
        { name: "deletions.json", body: "[]" },
        { name: "deletions.json", body: "[]" },
      ],
      /twice/,
    );
  });

  test("deletions that are not a list of plain paths are refused", async () => {
    await refused([{ name: "deletions.json", body: '["../x"]' }], /not plain/);
    await refused([{ name: "deletions.json", body: "{" }], /not JSON/);
  });

  test("a snapshot over its size or its count of entries is refused", async () => {
    await refused([{ name: "files/big", body: "x".repeat(2048) }], /over 1024 bytes/, {
      maxBytes: 1024,
    });
    await refused(
      Array.from({ length: 11 }, (_, i) => ({ name: `files/f${i}`, body: "x" })),
      /more than 10 entries/,
      { maxEntries: 10 },
    );
  });

  test("bytes that are not a tar are refused", async () => {
    await assert.rejects(
      readSnapshot(Readable.from([Buffer.from("this is not a tar archive at all ".repeat(40))])),
      BadSnapshotError,
    );
  });
});
