// The contract's side of several repositories: what a workspace may be called, how the share
// names the bound ones, and how each one's bundle of changes travels in the results archive and
// is refused when the host did not bind it, when it comes twice or when it is too big.
import { strict as assert } from "node:assert";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { after, before, describe, test } from "node:test";
import {
  BadResultsError,
  BadShareError,
  formatResult,
  parseResult,
  parseWorkspacesInput,
  receiveResults,
  workspaceNameProblem,
  writeResults,
  type ReceiveOptions,
  type Result,
} from "../../src/protocol/index.js";
import { parseWorkspaceBinding } from "../../src/host/index.js";
import { END, file } from "./tarBytes.js";

const result: Result = {
  agent: "command",
  agentExitCode: 0,
  timedOut: false,
  leftovers: false,
  truncated: [],
  warnings: [],
};
const resultEntry = file("result.json", formatResult(result));
const base = "a".repeat(40);

let root: string;
async function refusedArchive(
  chunks: Buffer[],
  options: Omit<ReceiveOptions, "dir">,
  pattern: RegExp,
): Promise<void> {
  const dir = mkdtempSync(join(root, "r-"));
  await assert.rejects(
    receiveResults(Readable.from(chunks), { dir, ...options }),
    (error: unknown) => {
      assert.ok(error instanceof BadResultsError, String(error));
      assert.match(error.message, pattern);
      return true;
    },
  );
  assert.deepEqual(readdirSync(dir), [], "a refused archive leaves no file");
}

describe("workspaces in the contract", () => {
  before(() => {
    root = mkdtempSync(join(tmpdir(), "warden-workspaces-"));
  });
  after(() => {
    rmSync(root, { recursive: true, force: true });
  });

  test("a workspace's name is a short plain word that is not the task's own", () => {
    for (const name of ["lib", "my-lib_2", "A", "x".repeat(32)]) {
      assert.equal(workspaceNameProblem(name), undefined, name);
    }
    for (const name of [
      "",
      "..",
      ".",
      "a/b",
      "../up",
      "-x",
      "1lib",
      "a.b",
      "a b",
      "main",
      "x".repeat(33),
      "lib\n",
    ]) {
      assert.notEqual(workspaceNameProblem(name), undefined, JSON.stringify(name));
    }
  });

  test("a binding is NAME=PATH[@REV], its path taken from the directory it was typed in", () => {
    assert.deepEqual(parseWorkspaceBinding("lib=/src/lib", "/home"), {
      name: "lib",
      path: "/src/lib",
    });
    assert.deepEqual(parseWorkspaceBinding("lib=../lib@v1.2", "/home/me"), {
      name: "lib",
      path: "/home/lib",
      rev: "v1.2",
    });
    assert.deepEqual(parseWorkspaceBinding("lib=/x@main@{1}", "/"), {
      name: "lib",
      path: "/x",
      rev: "main@{1}",
    });
    for (const [text, pattern] of [
      ["/src/lib", /has no =/],
      ["=/src/lib", /cannot be a workspace's: it is empty/],
      ["lib=", /names no path/],
      ["lib=@v1", /names no path/],
      ["lib=/x@", /an @ but no revision/],
      ["a/../b=/x", /cannot be a workspace's/],
    ] as const) {
      assert.throws(
        () => parseWorkspaceBinding(text, "/"),
        (error: unknown) => {
          assert.equal((error as { code?: string }).code, "BAD_WORKSPACE", text);
          assert.match((error as Error).message, pattern);
          return true;
        },
      );
    }
  });

  test("workspaces.json is refused with a name twice, the task's own name, a relative repository or an unknown field", () => {
    const one = { name: "lib", base, repository: "/h/lib", source: "/src/lib" };
    const ok = parseWorkspacesInput(
      Buffer.from(JSON.stringify({ mainSource: "/src/app", workspaces: [one] })),
    );
    assert.deepEqual(ok.workspaces, [one]);
    for (const workspaces of [
      [one, one],
      [{ ...one, name: "main" }],
      [{ ...one, name: "../x" }],
      [{ ...one, repository: "h/lib" }],
      [{ ...one, repository: "/h/../lib" }],
      [{ ...one, extra: 1 }],
      [],
    ]) {
      assert.throws(
        () =>
          parseWorkspacesInput(Buffer.from(JSON.stringify({ mainSource: "/src/app", workspaces }))),
        BadShareError,
        JSON.stringify(workspaces),
      );
    }
  });

  test("result.json's claims of workspaces take only workspace names", () => {
    const claim = { name: "lib", base, head: base, leftovers: false };
    assert.deepEqual(parseResult(formatResult({ ...result, workspaces: [claim] })).workspaces, [
      claim,
    ]);
    for (const name of ["../x", "main", "a/b"]) {
      const bytes = Buffer.from(JSON.stringify({ ...result, workspaces: [{ ...claim, name }] }));
      assert.throws(() => parseResult(bytes), BadResultsError, name);
    }
  });

  test("a bound workspace's bundle goes from writeResults to receiveResults under its own name", async () => {
    const src = mkdtempSync(join(root, "src-"));
    writeFileSync(join(src, "main"), "main bundle");
    writeFileSync(join(src, "lib"), "lib bundle");
    const pipe = new PassThrough();
    const dir = mkdtempSync(join(root, "dir-"));
    const receiving = receiveResults(pipe, { dir, workspaces: ["lib", "docs"] });
    await writeResults(
      pipe,
      [
        { name: "changes.bundle", path: join(src, "main") },
        { name: "changes.lib.bundle", path: join(src, "lib") },
      ],
      result,
    );
    pipe.end();
    const received = await receiving;
    assert.deepEqual(Object.keys(received.workspaceFiles), ["lib"]);
    assert.equal(readFileSync(received.workspaceFiles.lib?.path ?? "", "utf8"), "lib bundle");
    assert.equal(received.workspaceFiles.lib?.path, join(dir, "changes.lib.bundle"));
    assert.equal(readFileSync(join(dir, "changes.bundle"), "utf8"), "main bundle");
  });

  test("the guest will not send a workspace's bundle under a name that climbs", async () => {
    const src = mkdtempSync(join(root, "src-"));
    writeFileSync(join(src, "b"), "x");
    for (const name of ["changes.../x.bundle", "changes..bundle", "changes.lib/x.bundle"]) {
      await assert.rejects(
        writeResults(
          new PassThrough(),
          [{ name: name as "changes.bundle", path: join(src, "b") }],
          result,
        ),
        BadResultsError,
        name,
      );
    }
  });

  test("a bundle of a workspace the host did not bind is refused", async () => {
    await refusedArchive(
      [file("changes.lib.bundle", "x"), resultEntry, END],
      { workspaces: ["docs"] },
      /a name that is not a result file: "?changes\.lib\.bundle/,
    );
    await refusedArchive(
      [file("changes.lib.bundle", "x"), resultEntry, END],
      {},
      /not a result file/,
    );
  });

  test("a bound workspace's bundle twice is refused", async () => {
    await refusedArchive(
      [file("changes.lib.bundle", "x"), file("changes.lib.bundle", "y"), resultEntry, END],
      { workspaces: ["lib"] },
      /changes\.lib\.bundle twice/,
    );
  });

  test("a workspace's bundle over the bundle limit is refused from its header", async () => {
    await refusedArchive(
      [file("changes.lib.bundle", "x".repeat(101)), resultEntry, END],
      { workspaces: ["lib"], limits: { "changes.bundle": 100 } },
      /changes\.lib\.bundle in the results claims 101 bytes, over its limit of 100/,
    );
  });

  test("bundles each within the limit but over it together are refused", async () => {
    await refusedArchive(
      [
        file("changes.bundle", "x".repeat(60)),
        file("changes.lib.bundle", "y".repeat(60)),
        resultEntry,
        END,
      ],
      { workspaces: ["lib"], allChangesBytes: 100 },
      /the bundles of changes in the results claim 120 bytes together, over their limit of 100/,
    );
  });
});
