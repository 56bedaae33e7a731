// No module of warden builds a zod schema as it loads. Building one runs zod's constructors for
// every part of it, and the first schema a process builds warms zod up as well: the runner built
// about 15 ms of schemas at its start, in every sandbox, and most were never used in a task (the
// channel's requests are the host's to parse, the inside sessions' only when someone steps in).
// A schema is made on its first use instead (memo, src/lang/memo.ts), which this test checks in
// the source: a call on `z` that runs when its module loads, outside any function, fails it.
import { strict as assert } from "node:assert";
import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SRC = join(ROOT, "src");

/** Every TypeScript file under `dir`. */
async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter(
      (entry) => entry.isFile() && /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts"),
    )
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * Whether `node` is code that runs later, when called, rather than as its module loads: a
 * function's body, an instance field's initializer (run by the constructor) or a type. A static
 * field's initializer runs with its class, as its module loads.
 */
function runsLater(node: ts.Node): boolean {
  const instanceField =
    ts.isPropertyDeclaration(node) &&
    !(ts.getCombinedModifierFlags(node) & ts.ModifierFlags.Static);
  return (
    ts.isFunctionLike(node) ||
    instanceField ||
    ts.isTypeNode(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node)
  );
}

/** The identifier a chain of calls and property reads starts from: `z` for z.string().min(1). */
function chainRoot(expression: ts.Expression): ts.Expression {
  let root = expression;
  while (ts.isPropertyAccessExpression(root) || ts.isCallExpression(root)) root = root.expression;
  return root;
}

/** Each call on `z` in `text` that runs as the module loads, as `line: code`. */
function schemasBuiltOnLoad(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (runsLater(node)) return;
    if (ts.isCallExpression(node)) {
      const root = chainRoot(node.expression);
      if (ts.isIdentifier(root) && root.text === "z") {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${line + 1}: ${node.getText(source).split("\n")[0] ?? ""}`);
        return;
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test("a schema built as its module loads is found, and one made on first use is not", () => {
  const eager = [
    'import { z } from "zod";',
    "const id = z.string().min(1);",
    "export const table = { key: { schema: z.enum(['a', 'b']) } };",
    "export const later = memo(() => z.object({ id: z.string() }));",
    "export function parse(value: unknown) { return z.number().parse(value); }",
    "export type Id = z.infer<typeof later>;",
    "class Reader { static head = z.literal(1); body = z.string(); }",
  ].join("\n");
  assert.deepEqual(schemasBuiltOnLoad("example.ts", eager), [
    "2: z.string().min(1)",
    "3: z.enum(['a', 'b'])",
    "7: z.literal(1)",
  ]);
});

test("no module of src builds a zod schema as it loads", async () => {
  const files = await sourceFiles(SRC);
  assert.ok(files.length > 100, `found only ${files.length} source files under ${SRC}`);
  const offences: string[] = [];
  for (const file of files) {
    const text = await readFile(file, "utf8");
    if (!/from "zod(\/[a-z0-9/]+)?"/.test(text)) continue;
    for (const found of schemasBuiltOnLoad(file, text)) {
      offences.push(`${relative(ROOT, file)}:${found}`);
    }
  }
  assert.deepEqual(offences, [], "make each of these schemas on first use, with memo()");
});
