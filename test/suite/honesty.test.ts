// The suite checks itself: no test skips by a route that CI would not fail, none passes by
// returning early or by not being registered, and every test asserts. First the check against
// small sources that break each rule (and ones that keep it), then against the real test tree.
import { strict as assert } from "node:assert";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { before, describe, test } from "node:test";
import ts from "typescript";
import { findDishonestTests, type HonestyFinding, type HonestyRule } from "./testHonesty.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const TEST_DIR = join(ROOT, "test");

/**
 * The whole check over every test file builds one TypeScript program, about 6 s on a 2-core
 * machine; a minute leaves room for a loaded machine and still fails a check that has grown slow.
 */
const WHOLE_TREE_MS = 60_000;

/** The project's compiler options, as tsc reads them from tsconfig.json. */
function projectOptions(): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.json"), undefined, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, "\n"));
    },
  });
  assert.ok(parsed !== undefined, "tsconfig.json could not be read");
  return parsed.options;
}

/** Where the small sources live: a folder that does not exist, beside the real support files. */
const EXAMPLES = join(TEST_DIR, "suite", "examples");

const HEAD = `import { strict as assert } from "node:assert";
import { existsSync } from "node:fs";
import { describe, it, test } from "node:test";
import { skipWhen, type SkipReason } from "../../support/skipWhen.js";
void assert; void existsSync; void describe; void it; void test; void skipWhen;
export type Unused = SkipReason;
`;

/** Each small source, and the rules it breaks (none for the ones that keep every rule). */
const EXAMPLE_SOURCES: Record<string, { source: string; breaks: HonestyRule[] }> = {
  "t.skip() in a test's body": {
    source: `test("a", (t) => { t.skip("no"); assert.ok(true); });`,
    breaks: ["skip-route"],
  },
  "t.todo() in a test's body": {
    source: `test("a", (t) => { t.todo("later"); assert.ok(true); });`,
    breaks: ["skip-route"],
  },
  "test.skip, it.skip and describe.todo": {
    source: `test.skip("a", () => { assert.ok(true); });
it.skip("b", () => { assert.ok(true); });
describe.todo("c", () => {});`,
    breaks: ["skip-route", "skip-route", "skip-route"],
  },
  "a todo option": {
    source: `test("a", { todo: true }, () => { assert.ok(true); });`,
    breaks: ["skip-route"],
  },
  "a skip option that is a plain string": {
    source: `test("a", { skip: "x" }, () => { assert.ok(true); });`,
    breaks: ["skip-route"],
  },
  "a skip option that is true": {
    source: `describe("a", { skip: true }, () => { test("b", () => { assert.ok(true); }); });`,
    breaks: ["skip-route"],
  },
  "a skip reason of its own condition, as a suite's parameter": {
    source: `const missing: string | false = existsSync("/nowhere") ? false : "missing";
function suiteOf(skip: string | false): void {
  describe("a", { skip }, () => { test("b", () => { assert.ok(true); }); });
}
suiteOf(missing);`,
    breaks: ["skip-route"],
  },
  "a skip reason that lost its brand through ??": {
    source: `const skip = skipWhen(false) || undefined;
test("a", { skip: skip ?? "fallback" }, () => { assert.ok(true); });`,
    breaks: ["skip-route"],
  },
  "an early return in a test's body": {
    source: `test("a", () => {
  if (!existsSync("/nowhere")) return;
  assert.ok(true);
});`,
    breaks: ["early-return"],
  },
  "an early return in a suite's body": {
    source: `describe("a", () => {
  if (!existsSync("/nowhere")) return;
  test("b", () => { assert.ok(true); });
});`,
    breaks: ["early-return", "conditional-test"],
  },
  "tests registered under an if, a ternary and &&": {
    source: `if (existsSync("/nowhere")) test("a", () => { assert.ok(true); });
const here = existsSync("/nowhere");
void (here ? test("b", () => { assert.ok(true); }) : undefined);
void (here && test("c", () => { assert.ok(true); }));`,
    breaks: ["conditional-test", "conditional-test", "conditional-test"],
  },
  "tests registered after a helper's early return": {
    source: `function register(): void {
  if (!existsSync("/nowhere")) return;
  test("a", () => { assert.ok(true); });
}
register();`,
    breaks: ["conditional-test"],
  },
  "a test that never asserts": {
    source: `test("a", async () => { await Promise.resolve(existsSync("/")); });`,
    breaks: ["no-assertion"],
  },
  "a test whose helper never asserts": {
    source: `function look(): boolean { return existsSync("/"); }
it("a", () => { look(); });`,
    breaks: ["no-assertion"],
  },
  "skips that went through skipWhen, in every shape the suite uses": {
    source: `const A = skipWhen(existsSync("/nowhere") ? false : "missing");
const B: SkipReason = skipWhen(undefined);
const C: SkipReason | undefined = skipWhen("x") || undefined;
function reason(): SkipReason { return skipWhen(false); }
function suiteOf(skip: SkipReason): void {
  describe("s", { skip }, () => { test("t", () => { assert.ok(true); }); });
}
suiteOf(A);
describe("a", { skip: A || B }, () => {
  test("b", { skip: C }, () => { assert.ok(true); });
  test("c", { skip: reason() }, () => { assert.ok(true); });
  test("d", { skip: false, timeout: 1000 }, () => { assert.ok(true); });
  test("e", { skip: undefined }, () => { assert.ok(true); });
});`,
    breaks: [],
  },
  "assertions through helpers, callbacks, branches and subtests": {
    source: `import { checkTwice } from "./helperOuter.js";
test("a", () => { checkTwice(1); });
test("b", async () => { await assert.rejects(Promise.reject(new Error("x"))); });
test("c", () => { [1, 2].forEach((n) => { assert.ok(n > 0); }); });
test("d", () => {
  if (existsSync("/")) {
    assert.ok(true, "this mode");
    return;
  }
  assert.ok(true, "the other mode");
});
test("e", async (t) => { await t.test("f", () => { assert.equal(1, 1); }); });
for (const agent of ["x", "y"]) {
  if (agent === "y") test("g " + agent, () => { assert.ok(agent); });
}
test("h", () => assert.ok(true));
interface Probe { check(n: number): void }
const probe: Probe = { check: (n) => { assert.ok(n > 0); } };
test("i", () => { probe.check(1); });`,
    breaks: [],
  },
};

/** Helpers in files of their own: a test that calls one asserts through the other. */
const HELPERS: Record<string, string> = {
  "helperOuter.ts": `import { checkOnce } from "./helperInner.js";
export function checkTwice(n: number): void { checkOnce(n); checkOnce(n); }`,
  "helperInner.ts": `import { strict as assert } from "node:assert";
export const checkOnce = (n: number): void => { assert.ok(n > 0); };`,
};

function fileOf(name: string): string {
  return join(EXAMPLES, `${name.replace(/[^a-z]+/gi, "-")}.test.ts`);
}

function listed(findings: readonly HonestyFinding[]): string {
  return findings.map((f) => `${f.file}:${f.line}: ${f.rule}: ${f.says}`).join("\n");
}

describe("the suite's honesty check, on small sources", () => {
  let findings: HonestyFinding[] = [];
  before(() => {
    const sources = new Map<string, string>();
    for (const [name, { source }] of Object.entries(EXAMPLE_SOURCES)) {
      sources.set(fileOf(name), HEAD + source + "\n");
    }
    for (const [name, source] of Object.entries(HELPERS)) sources.set(join(EXAMPLES, name), source);
    findings = findDishonestTests({ sources, options: projectOptions(), root: ROOT });
  });

  for (const [name, { breaks }] of Object.entries(EXAMPLE_SOURCES)) {
    const verdict = breaks.length === 0 ? "passes" : `is found (${breaks.join(", ")})`;
    test(`${name} ${verdict}`, () => {
      const file = fileOf(name).slice(ROOT.length + 1);
      const own = findings.filter((f) => f.file === file);
      assert.deepEqual(
        own.map((f) => f.rule),
        breaks,
        listed(own),
      );
      const headLines = HEAD.split("\n").length - 1;
      for (const f of own)
        assert.ok(f.line > headLines, `a finding outside the example: ${f.line}`);
    });
  }

  test("the helpers' files, which register no test, have nothing to find", () => {
    assert.deepEqual(listed(findings.filter((f) => /helper(Outer|Inner)/.test(f.file))), "");
  });
});

test(
  "no test file skips past skipWhen, returns early, registers a test conditionally or has a test that never asserts",
  { timeout: WHOLE_TREE_MS },
  () => {
    const sources = new Map<string, string>();
    for (const name of readdirSync(TEST_DIR, { recursive: true, encoding: "utf8" })) {
      if (!name.endsWith(".ts")) continue;
      const path = join(TEST_DIR, name);
      sources.set(path, readFileSync(path, "utf8"));
    }
    assert.ok(sources.size > 100, `only ${sources.size} test files were found`);
    const findings = findDishonestTests({ sources, options: projectOptions(), root: ROOT });
    assert.equal(listed(findings), "", "each finding is file:line: rule: what is wrong");
  },
);
