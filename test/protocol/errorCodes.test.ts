// Every error class of warden's, as the folders export them: each takes (message, options), each
// code is one class's alone, and each code is in the table of docs/cli.md with the exit status
// the CLI really gives it. Scripts branch on these codes, so the table is their contract.
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import * as cli from "../../src/cli/cliErrors.js";
import * as config from "../../src/config/index.js";
import { exitForError } from "../../src/cli/exitCodes.js";
import * as egress from "../../src/egress/index.js";
import * as fleet from "../../src/fleet/index.js";
import * as guest from "../../src/guest/index.js";
import * as host from "../../src/host/index.js";
import * as protocol from "../../src/protocol/index.js";
import { WardenError } from "../../src/protocol/index.js";
import * as sandbox from "../../src/sandbox/index.js";
import * as store from "../../src/store/index.js";
import * as web from "../../src/web/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const FOLDERS = { protocol, store, host, guest, sandbox, egress, config, cli, web, fleet };

type ErrorClass = new (message: string, options: object) => WardenError;

/** One concrete error class: where it is exported, and what an instance of it says. */
interface Kind {
  name: string;
  code: string;
  exit: number;
}

/** Every concrete WardenError class the folders export, once each (some are re-exported). */
function exportedKinds(): Kind[] {
  const seen = new Set<unknown>();
  const kinds: Kind[] = [];
  for (const [folder, exports] of Object.entries(FOLDERS)) {
    for (const [name, value] of Object.entries(exports) as [string, unknown][]) {
      if (typeof value !== "function" || !(value.prototype instanceof WardenError)) continue;
      if (seen.has(value)) continue;
      seen.add(value);
      let error: WardenError;
      try {
        error = new (value as ErrorClass)("probe", {});
      } catch (cause) {
        assert.fail(`${folder}'s ${name} does not take (message, options): ${String(cause)}`);
      }
      // The abstract roots (WardenError, StoreError, ...) fix no code.
      if (typeof (error.code as unknown) !== "string") continue;
      assert.equal(error.message, "probe", `${name} keeps the caller's message`);
      kinds.push({ name: `${folder}.${name}`, code: error.code, exit: exitForError(error) });
    }
  }
  return kinds;
}

/** The codes two or more classes share, each with the classes that have it. */
function sharedCodes(kinds: readonly Kind[]): string[] {
  const owners = new Map<string, string[]>();
  for (const kind of kinds) owners.set(kind.code, [...(owners.get(kind.code) ?? []), kind.name]);
  return [...owners]
    .filter(([, names]) => names.length > 1)
    .map(([c, n]) => `${c}: ${n.join(", ")}`);
}

/** The rows of the "Error codes" table of docs/cli.md: code → exit status. */
function documentedCodes(): Map<string, number> {
  const doc = readFileSync(join(ROOT, "docs/cli.md"), "utf8");
  const section = doc.split("\n## Error codes\n")[1]?.split("\n## ")[0] ?? "";
  const rows = new Map<string, number>();
  for (const match of section.matchAll(/^\| `([A-Z][A-Z0-9_]*)` +\|.*\| (\d) +\|$/gm)) {
    rows.set(match[1] ?? "", Number(match[2]));
  }
  return rows;
}

/** Every code a class of src/ fixes, read from the source: `readonly code: string = "..."`. */
function codesInSource(): Set<string> {
  const codes = new Set<string>();
  for (const entry of readdirSync(join(ROOT, "src"), { recursive: true, encoding: "utf8" })) {
    if (!entry.endsWith(".ts")) continue;
    const text = readFileSync(join(ROOT, "src", entry), "utf8");
    for (const match of text.matchAll(/readonly code: string = "([A-Z][A-Z0-9_]*)"/g)) {
      codes.add(match[1] ?? "");
    }
  }
  return codes;
}

test("no two error classes share a code", () => {
  const kinds = exportedKinds();
  assert.ok(kinds.length > 80, `only ${kinds.length} error classes were found`);
  assert.deepEqual(sharedCodes(kinds), []);
});

test("the shared-code check names a code two classes have", () => {
  const kinds = [
    { name: "a.GitError", code: "GIT_FAILED", exit: 1 },
    { name: "b.GitError", code: "GIT_FAILED", exit: 1 },
    { name: "c.UsageError", code: "USAGE", exit: 2 },
  ];
  assert.deepEqual(sharedCodes(kinds), ["GIT_FAILED: a.GitError, b.GitError"]);
});

test("every error class of src/ is exported by its folder's index", () => {
  const exported = new Set(exportedKinds().map((kind) => kind.code));
  assert.deepEqual(
    [...codesInSource()].filter((code) => !exported.has(code)),
    [],
    "a class whose code is missing here is not in its folder's index.ts",
  );
});

test("every code is in the table of docs/cli.md with the exit status the CLI gives it", () => {
  const documented = documentedCodes();
  for (const kind of exportedKinds()) {
    assert.ok(documented.has(kind.code), `${kind.code} (${kind.name}) is not in docs/cli.md`);
    assert.equal(documented.get(kind.code), kind.exit, `the exit status of ${kind.code}`);
  }
});

test("the table of docs/cli.md names no code that no class has", () => {
  const codes = new Set(exportedKinds().map((kind) => kind.code));
  assert.deepEqual(
    [...documentedCodes().keys()].filter((code) => !codes.has(code)),
    [],
  );
});
