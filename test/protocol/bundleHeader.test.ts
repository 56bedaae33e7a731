import { strict as assert } from "node:assert";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import {
  BadBundleError,
  LIMITS,
  MAX_BUNDLE_HEADER_BYTES,
  TASK_BRANCH,
  checkBundle,
  readBundleHeader,
  readBundleHeaderFile,
  type BundleHeader,
} from "../../src/protocol/index.js";

const A = "a".repeat(40);
const B = "b".repeat(40);
const A256 = "a".repeat(64);

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
    },
  }).trim();
}

/** A repository with a base commit and TASK_BRANCH one commit past it, bundled from base on. */
function makeBundle(
  root: string,
  name: string,
  options: { objectFormat?: "sha1" | "sha256"; version?: 2 | 3 } = {},
): { path: string; base: string; head: string } {
  const repo = join(root, name);
  git(root, "init", "-q", `--object-format=${options.objectFormat ?? "sha1"}`, repo);
  writeFileSync(join(repo, "a.txt"), "base\n");
  git(repo, "add", "a.txt");
  git(repo, "commit", "-q", "-m", "the base, with a subject");
  const base = git(repo, "rev-parse", "HEAD");
  git(repo, "switch", "-q", "-c", "warden/task");
  writeFileSync(join(repo, "a.txt"), "changed\n");
  git(repo, "commit", "-q", "-am", "the change");
  const head = git(repo, "rev-parse", "HEAD");
  const path = join(root, `${name}.bundle`);
  const version = options.version === undefined ? [] : [`--version=${options.version}`];
  git(repo, "bundle", "create", "-q", ...version, path, `${base}..warden/task`);
  return { path, base, head };
}

function headerOf(...lines: string[]): Buffer {
  return Buffer.from(lines.map((line) => line + "\n").join("") + "\n" + "PACK");
}

async function refused(bytes: Uint8Array, pattern: RegExp): Promise<void> {
  await assert.rejects(readBundleHeader(bytes), (error: unknown) => {
    assert.ok(error instanceof BadBundleError, String(error));
    assert.equal(error.code, "BAD_BUNDLE");
    assert.match(error.message, pattern);
    return true;
  });
}

function checkRefused(header: BundleHeader, base: string, pattern: RegExp): void {
  assert.throws(
    () => checkBundle(header, base),
    (error: unknown) => error instanceof BadBundleError && pattern.test(error.message),
  );
}

/** A stream that counts the bytes it hands out; `more` makes each next chunk, forever if asked. */
function countingStream(more: (n: number) => Buffer | null): {
  stream: Readable;
  given: () => number;
} {
  let given = 0;
  let n = 0;
  const stream = new Readable({
    read() {
      const chunk = more(n++);
      if (chunk !== null) given += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, given: () => given };
}

describe("readBundleHeader", () => {
  let root = "";
  before(() => {
    root = mkdtempSync(join(tmpdir(), "warden-bundle-"));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  test("a real git bundle is read, and checkBundle returns its head", async () => {
    const { path, base, head } = makeBundle(root, "v2");
    const header = await readBundleHeaderFile(path);
    assert.equal(header.version, 2);
    assert.equal(header.objectFormat, "sha1");
    assert.deepEqual(header.prerequisites, [base]);
    assert.deepEqual([...header.refs], [[TASK_BRANCH, head]]);
    assert.equal(checkBundle(header, base), head);
    assert.deepEqual(await readBundleHeader(readFileSync(path)), header);
  });

  test("the pack of a real bundle starts where its header says the header ends", async () => {
    for (const [name, options] of [
      ["offset-v2", {}],
      ["offset-sha256", { objectFormat: "sha256" }],
    ] as const) {
      const { path } = makeBundle(root, name, options);
      const header = await readBundleHeaderFile(path);
      const bytes = readFileSync(path);
      assert.equal(bytes.subarray(header.packOffset - 2, header.packOffset).toString(), "\n\n");
      assert.equal(bytes.subarray(header.packOffset, header.packOffset + 4).toString(), "PACK");
    }
  });

  test("a v3 bundle of a sha1 repository is read", async () => {
    const { path, base, head } = makeBundle(root, "v3", { version: 3 });
    const header = await readBundleHeaderFile(path);
    assert.equal(header.version, 3);
    assert.equal(header.objectFormat, "sha1");
    assert.equal(checkBundle(header, base), head);
  });

  test("a v3 sha256 bundle is read correctly", async () => {
    const { path, base, head } = makeBundle(root, "sha256", { objectFormat: "sha256" });
    const header = await readBundleHeaderFile(path);
    assert.equal(header.version, 3);
    assert.equal(header.objectFormat, "sha256");
    assert.equal(head.length, 64);
    assert.deepEqual(header.prerequisites, [base]);
    assert.equal(checkBundle(header, base), head);
  });

  test("a full bundle has no prerequisites", async () => {
    const repo = join(root, "full");
    git(root, "init", "-q", repo);
    git(repo, "commit", "-q", "--allow-empty", "-m", "only");
    git(repo, "bundle", "create", "-q", join(root, "full.bundle"), "HEAD");
    const header = await readBundleHeaderFile(join(root, "full.bundle"));
    assert.deepEqual(header.prerequisites, []);
    assert.deepEqual([...header.refs.keys()], ["HEAD"]);
  });

  test("a bundle is read from a stream, which is destroyed after the header", async () => {
    const { path, head } = makeBundle(root, "stream");
    const bytes = readFileSync(path);
    const stream = Readable.from([bytes.subarray(0, 7), bytes.subarray(7, 50), bytes.subarray(50)]);
    const header = await readBundleHeader(stream);
    assert.equal(header.refs.get(TASK_BRANCH), head);
    assert.ok(stream.destroyed);
  });

  test("a symlink in place of the bundle file is not followed", async () => {
    const { path } = makeBundle(root, "target");
    symlinkSync(path, join(root, "link.bundle"));
    await assert.rejects(readBundleHeaderFile(join(root, "link.bundle")), { code: "ELOOP" });
  });

  test("an empty bundle is refused", async () => {
    await refused(new Uint8Array(0), /empty/);
  });

  test("PACK bytes alone are refused", async () => {
    await refused(Buffer.from("PACK\0\0\0\x02\0\0\0\x03"), /not a git bundle/);
  });

  test("a signature with extra text is refused", async () => {
    await refused(Buffer.from("# v2 git bundle \n\n"), /not a git bundle/);
    await refused(Buffer.from("# v4 git bundle\n\n"), /not a git bundle/);
    await refused(Buffer.from("# v2 git bundle\r\n\n"), /not a git bundle/);
  });

  test("a header without its blank line is refused", async () => {
    await refused(Buffer.from(`# v2 git bundle\n${A} ${TASK_BRANCH}\n`), /blank line/);
    await refused(Buffer.from(`# v2 git bundle\n${A} ${TASK_BRANCH}`), /blank line/);
  });

  test("a line of 5000 bytes is refused", async () => {
    await refused(headerOf("# v2 git bundle", `-${A} ${"x".repeat(5000)}`), /over 4096 bytes/);
  });

  test("a line of exactly the limit is taken", async () => {
    const line = `-${A} `;
    const header = await readBundleHeader(
      headerOf(
        "# v2 git bundle",
        line + "x".repeat(LIMITS.bundleHeaderLineBytes - line.length),
        `${B} ${TASK_BRANCH}`,
      ),
    );
    assert.deepEqual(header.prerequisites, [A]);
  });

  test("2000 refs are refused", async () => {
    const refs = Array.from({ length: 2000 }, (_, i) => `${A} refs/heads/r${i}`);
    await refused(headerOf("# v2 git bundle", ...refs), /more than 1024 lines/);
  });

  test("a ref twice is refused", async () => {
    await refused(
      headerOf("# v2 git bundle", `${A} ${TASK_BRANCH}`, `${B} ${TASK_BRANCH}`),
      /twice/,
    );
  });

  test("an unknown capability is refused", async () => {
    await refused(
      headerOf("# v3 git bundle", "@filter=blob:none", `${A} ${TASK_BRANCH}`),
      /capability/,
    );
    await refused(
      headerOf("# v3 git bundle", "@object-format=md5", `${A} ${TASK_BRANCH}`),
      /capability/,
    );
  });

  test("a capability in a v2 bundle is refused", async () => {
    await refused(
      headerOf("# v2 git bundle", "@object-format=sha1", `${A} ${TASK_BRANCH}`),
      /capability/,
    );
  });

  test("a capability after a ref is refused", async () => {
    await refused(
      headerOf("# v3 git bundle", `${A} ${TASK_BRANCH}`, "@object-format=sha256"),
      /capability/,
    );
  });

  test("the object format twice is refused", async () => {
    await refused(
      headerOf(
        "# v3 git bundle",
        "@object-format=sha1",
        "@object-format=sha1",
        `${A} ${TASK_BRANCH}`,
      ),
      /twice/,
    );
  });

  test("an uppercase oid is refused", async () => {
    await refused(headerOf("# v2 git bundle", `${"A".repeat(40)} ${TASK_BRANCH}`), /object id/);
    await refused(
      headerOf("# v2 git bundle", `-${"A".repeat(40)}`, `${B} ${TASK_BRANCH}`),
      /object id/,
    );
  });

  test("a short oid is refused", async () => {
    await refused(headerOf("# v2 git bundle", `${"a".repeat(39)} ${TASK_BRANCH}`), /object id/);
    await refused(
      headerOf("# v2 git bundle", `-abc1234 subject`, `${B} ${TASK_BRANCH}`),
      /object id/,
    );
  });

  test("an oid of the other object format is refused", async () => {
    await refused(headerOf("# v2 git bundle", `${A256} ${TASK_BRANCH}`), /sha1 object id/);
    await refused(
      headerOf("# v3 git bundle", "@object-format=sha256", `${A} ${TASK_BRANCH}`),
      /sha256 object id/,
    );
  });

  test("a ref line split by a tab or with no name is refused", async () => {
    await refused(headerOf("# v2 git bundle", `${A}\t${TASK_BRANCH}`), /without a ref name/);
    await refused(headerOf("# v2 git bundle", A), /without a ref name/);
    await refused(headerOf("# v2 git bundle", `${A} `), /ref name/);
    await refused(headerOf("# v2 git bundle", `${A} refs/heads/a b`), /ref name/);
  });

  test("a prerequisite after a ref is refused", async () => {
    await refused(
      headerOf("# v2 git bundle", `${B} ${TASK_BRANCH}`, `-${A}`),
      /prerequisite after/,
    );
  });

  test("a prerequisite without a subject is taken", async () => {
    const header = await readBundleHeader(
      headerOf("# v2 git bundle", `-${A}`, `${B} ${TASK_BRANCH}`),
    );
    assert.deepEqual(header.prerequisites, [A]);
  });

  test("a hostile ref name is quoted cleaned in the error", async () => {
    await assert.rejects(
      readBundleHeader(headerOf("# v2 git bundle", `${A} refs/\x1b[2J\u202Ex`)),
      (error: unknown) =>
        error instanceof BadBundleError &&
        !error.message.includes("\x1b") &&
        !error.message.includes("\u202E"),
    );
  });

  test("a line that is not UTF-8 is refused", async () => {
    await refused(
      Buffer.concat([
        Buffer.from(`# v2 git bundle\n${A} refs/heads/`),
        Buffer.from([0xff]),
        Buffer.from("\n\n"),
      ]),
      /not UTF-8/,
    );
  });

  test("reading from a stream stops at the blank line and does not drain the pack", async () => {
    const start = headerOf("# v2 git bundle", `${A} ${TASK_BRANCH}`);
    const { stream, given } = countingStream((n) => (n === 0 ? start : Buffer.alloc(64 * 1024)));
    const header = await readBundleHeader(stream);
    assert.equal(header.refs.get(TASK_BRANCH), A);
    assert.ok(stream.destroyed);
    // The pack that follows is endless: only read-ahead of a chunk or so may have been taken.
    assert.ok(given() <= start.length + 4 * 64 * 1024, `read ${given()} bytes`);
  });

  test("reading an endless header from a stream stops at the header limits", async () => {
    const line = Buffer.from(`-${A} ${"x".repeat(4000)}\n`);
    const { stream, given } = countingStream((n) =>
      n === 0 ? Buffer.from("# v2 git bundle\n") : Buffer.concat(Array<Buffer>(16).fill(line)),
    );
    await assert.rejects(readBundleHeader(stream), /more than 1024 lines/);
    assert.ok(stream.destroyed);
    assert.ok(given() <= MAX_BUNDLE_HEADER_BYTES + 4 * 64 * 1024, `read ${given()} bytes`);
  });

  test("reading an endless line from a stream stops at the line limit", async () => {
    const { stream, given } = countingStream((n) =>
      n === 0 ? Buffer.from("# v2 git bundle\n") : Buffer.alloc(1024, 0x61),
    );
    await assert.rejects(readBundleHeader(stream), /over 4096 bytes/);
    assert.ok(given() <= 16 + 4096 + 4 * 64 * 1024, `read ${given()} bytes`);
  });

  test("reading a big file reads no more than the header limits", async () => {
    // A file of only header-like lines: the reader gives up at the line count, having read
    // far less than the file.
    const path = join(root, "huge.bundle");
    const line = `-${A} ${"x".repeat(4000)}\n`;
    writeFileSync(path, "# v2 git bundle\n" + line.repeat(2000));
    await assert.rejects(readBundleHeaderFile(path), /more than 1024 lines/);
  });
});

describe("checkBundle", () => {
  const header = (refs: [string, string][], prerequisites: string[] = [A]): BundleHeader => ({
    version: 2,
    objectFormat: "sha1",
    prerequisites,
    refs: new Map(refs),
    packOffset: 0,
  });

  test("returns the head of the task branch", () => {
    assert.equal(checkBundle(header([[TASK_BRANCH, B]]), A), B);
  });

  test("a wrong prerequisite is refused", () => {
    checkRefused(header([[TASK_BRANCH, B]], ["c".repeat(40)]), A, /needs "c{40}"/);
    checkRefused(header([[TASK_BRANCH, B]], [A, "c".repeat(40)]), A, /needs/);
  });

  test("a bundle with no prerequisite is refused: its history does not build on the base", () => {
    checkRefused(header([[TASK_BRANCH, B]], []), A, /history was rewritten/);
  });

  test("an extra ref is refused", () => {
    checkRefused(
      header([
        [TASK_BRANCH, B],
        ["refs/heads/main", B],
      ]),
      A,
      /refs\/heads\/main/,
    );
  });

  test("a missing task branch is refused", () => {
    checkRefused(header([["refs/heads/other", B]]), A, /carries the ref/);
    checkRefused(header([]), A, /does not carry refs\/heads\/warden\/task/);
  });

  test("a base of the other object format is refused", () => {
    checkRefused({ ...header([[TASK_BRANCH, B]]), objectFormat: "sha256" }, A, /sha256/);
    checkRefused(header([[TASK_BRANCH, B]]), A256, /sha1/);
  });
});
