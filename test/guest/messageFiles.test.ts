// The runner's side of files sent with a message: copied from the share into the agent's
// directory under .warden-inbox/<n>/, kept out of git's changes, and named in the message the
// agent reads; a copy that cannot be made is said, never half-told.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { receiveMessageFiles } from "../../src/guest/messageFiles.js";
import { namedReplyFiles, sendReplyFiles } from "../../src/guest/replyFiles.js";
import { CHANNEL_LIMITS } from "../../src/protocol/index.js";

let root: string;
before(async () => {
  root = await mkdtemp(join(tmpdir(), "warden-message-files-"));
});
after(async () => {
  await rm(root, { recursive: true, force: true });
});

let serial = 0;

/** A workspace repository and a share's messages/ holding message n's files. */
async function places(n: number, files: Record<string, string>) {
  const dir = join(root, String(++serial));
  const workspace = join(dir, "workspace");
  const from = join(dir, "share", "messages");
  await mkdir(join(from, String(n)), { recursive: true });
  for (const [name, text] of Object.entries(files)) {
    await writeFile(join(from, String(n), name), text);
  }
  await mkdir(workspace, { recursive: true });
  execFileSync("git", ["init", "-q", workspace]);
  return { messages: from, agentDir: workspace, workspace, gitDir: join(workspace, ".git") };
}

test("the files land in .warden-inbox/<n>/, the message names them, and git does not see them", async () => {
  const p = await places(3, { "notes.md": "# notes\n", "data.csv": "a,b\n1,2\n" });
  const body = await receiveMessageFiles(
    {
      n: 3,
      body: "use these",
      files: [
        { name: "notes.md", bytes: 8 },
        { name: "data.csv", bytes: 8 },
      ],
    },
    p,
  );
  assert.equal(
    body,
    "use these\n\n[warden: 2 files came with this message, in .warden-inbox/3/ under your " +
      "working directory: notes.md (8 bytes), data.csv (8 bytes). They are not part of the " +
      "repository and git ignores them.]",
  );
  assert.equal(
    await readFile(join(p.agentDir, ".warden-inbox", "3", "notes.md"), "utf8"),
    "# notes\n",
  );
  const status = execFileSync("git", [
    "-C",
    p.agentDir,
    "status",
    "--porcelain",
    "--untracked=all",
  ]);
  assert.equal(status.toString(), "", "git sees nothing to commit");
  // A second message adds no second exclude line.
  await mkdir(join(p.messages, "4"));
  await writeFile(join(p.messages, "4", "x"), "x");
  await receiveMessageFiles({ n: 4, body: "more", files: [{ name: "x", bytes: 1 }] }, p);
  const exclude = await readFile(join(p.gitDir, "info", "exclude"), "utf8");
  assert.equal(exclude.split("\n").filter((line) => line === ".warden-inbox/").length, 1);
});

test("a .warden-inbox the agent made into a link is replaced by a directory, and nothing is written through it", async () => {
  const p = await places(1, { "a.txt": "hello" });
  const elsewhere = join(root, "elsewhere");
  await mkdir(elsewhere, { recursive: true });
  await symlink(elsewhere, join(p.agentDir, ".warden-inbox"));
  await receiveMessageFiles({ n: 1, body: "hi", files: [{ name: "a.txt", bytes: 5 }] }, p);
  assert.equal((await lstat(join(p.agentDir, ".warden-inbox"))).isDirectory(), true);
  assert.equal(existsSync(join(elsewhere, "1")), false);
  assert.equal(await readFile(join(p.agentDir, ".warden-inbox", "1", "a.txt"), "utf8"), "hello");
});

test("a file that is not what the host named is not copied: the agent is told the files could not be delivered", async () => {
  const p = await places(2, { "a.txt": "longer than said" });
  const body = await receiveMessageFiles(
    { n: 2, body: "hi", files: [{ name: "a.txt", bytes: 3 }] },
    p,
  );
  assert.match(
    body,
    /^hi\n\n\[warden: files were sent with this message, but they could not be delivered: a\.txt in the share is not the file the host named\]$/,
  );
});

test("a message without files is passed on as it is", async () => {
  assert.equal(await receiveMessageFiles({ n: 1, body: "plain" }, undefined), "plain");
});

describe("files handed back with a reply", () => {
  /** A channel that keeps what it is asked, as the host would get it. */
  function recordingChannel() {
    const asked: { name: string; offset: number; data: Buffer; last: boolean }[] = [];
    return {
      asked,
      files: () => {
        const files = new Map<string, Buffer>();
        for (const a of asked)
          files.set(a.name, Buffer.concat([files.get(a.name) ?? Buffer.alloc(0), a.data]));
        return files;
      },
      request: (ask: {
        op: string;
        name?: string;
        offset?: number;
        data?: string;
        last?: boolean;
      }) => {
        asked.push({
          name: ask.name ?? "",
          offset: ask.offset ?? -1,
          data: Buffer.from(ask.data ?? "", "base64"),
          last: ask.last ?? false,
        });
        return Promise.resolve({ v: 1, id: 0, ok: true, op: "reply.file" });
      },
    };
  }

  test("the paths a reply names are read from `warden-file:` lines, each once", () => {
    assert.deepEqual(
      namedReplyFiles(
        "Done.\nwarden-file: out/report.md\n  warden-file: no\nwarden-file:  b.txt  \nwarden-file: out/report.md",
      ),
      ["out/report.md", "b.txt"],
    );
  });

  test("a named file goes in pieces, in order, and comes out whole; a large one takes several", async () => {
    const p = await places(1, {});
    const big = randomBytes(CHANNEL_LIMITS.replyFileChunkBytes * 2 + 5);
    await mkdir(join(p.workspace, "out"));
    await writeFile(join(p.workspace, "out", "big.bin"), big);
    await writeFile(join(p.workspace, "notes.md"), "notes");
    const channel = recordingChannel();
    const warnings: string[] = [];
    await sendReplyFiles(
      channel,
      1,
      "here\nwarden-file: out/big.bin\nwarden-file: notes.md",
      p,
      (w) => warnings.push(w),
    );
    assert.deepEqual(warnings, []);
    assert.deepEqual(
      channel.asked.map((a) => [a.name, a.offset, a.last]),
      [
        ["big.bin", 0, false],
        ["big.bin", CHANNEL_LIMITS.replyFileChunkBytes, false],
        ["big.bin", CHANNEL_LIMITS.replyFileChunkBytes * 2, true],
        ["notes.md", 0, true],
      ],
    );
    assert.deepEqual(channel.files().get("big.bin"), big);
    assert.equal(channel.files().get("notes.md")?.toString(), "notes");
  });

  test("nothing outside the workspace goes: not by `..`, an absolute path, or a link that points out", async () => {
    const p = await places(1, {});
    const outside = join(root, `outside-${serial}.txt`);
    await writeFile(outside, "secret of the runner");
    await symlink(outside, join(p.workspace, "link.txt"));
    await symlink("/etc/passwd", join(p.workspace, "passwd"));
    const channel = recordingChannel();
    const warnings: string[] = [];
    await sendReplyFiles(
      channel,
      2,
      [`../outside-${serial}.txt`, outside, "link.txt", "passwd", "missing.txt", "has space.txt"]
        .map((path) => `warden-file: ${path}`)
        .join("\n"),
      p,
      (w) => warnings.push(w),
    );
    assert.deepEqual(channel.asked, []);
    assert.equal(warnings.length, 6);
    assert.match(warnings.join("\n"), /is outside the workspace/);
    assert.match(
      warnings.join("\n"),
      /missing.txt, named in the reply to message 2, is not handed back: it does not exist/,
    );
  });
});
