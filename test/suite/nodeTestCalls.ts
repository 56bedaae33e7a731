// What a call in a test file is, as node:test and node:assert declare it: a test, a suite, a
// skip or todo route, an assertion. Judged by the declaration the type checker resolves a name
// to, so a renamed import (`it`, `describe`, `strict as assert`) is still recognised.
import ts from "typescript";

/** What a call to node:test's API does; `skip` and `todo` are every route that bypasses skipWhen. */
export type TestApiKind = "test" | "suite" | "skip" | "todo";

const NODE_TEST_TYPES = /[\\/]@types[\\/]node[\\/]test\.d\.ts$/;
const NODE_ASSERT_TYPES = /[\\/]@types[\\/]node[\\/]assert(?:[\\/]strict)?\.d\.ts$/;
const SKIP_WHEN_FILE = /[\\/]test[\\/]support[\\/]skipWhen\.ts$/;

const KINDS: readonly TestApiKind[] = ["test", "suite", "skip", "todo"];

/** The names a test file gives node:test's functions; used where no declaration resolves. */
const REGISTRARS = new Set(["test", "it", "describe", "suite"]);

/** The symbol an expression names, through any import or export alias. */
export function resolvedSymbol(
  checker: ts.TypeChecker,
  expr: ts.Expression,
): ts.Symbol | undefined {
  const at = ts.isPropertyAccessExpression(expr) ? expr.name : expr;
  const symbol = checker.getSymbolAtLocation(at);
  if (symbol === undefined) return undefined;
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

function declaredIn(symbol: ts.Symbol | undefined, file: RegExp): ts.Declaration | undefined {
  return symbol?.declarations?.find((d) => file.test(d.getSourceFile().fileName));
}

/** The namespace a node:test declaration sits in (`test` or `suite`), for `test.only` and kin. */
function enclosingNamespace(declaration: ts.Node): string | undefined {
  for (let node = declaration.parent; !ts.isSourceFile(node); node = node.parent) {
    if (ts.isModuleDeclaration(node) && ts.isIdentifier(node.name)) return node.name.text;
  }
  return undefined;
}

/** What `expr` is in node:test's API, or undefined when it is not part of it. */
export function testApiKind(checker: ts.TypeChecker, expr: ts.Expression): TestApiKind | undefined {
  const declaration = declaredIn(resolvedSymbol(checker, expr), NODE_TEST_TYPES);
  if (declaration === undefined) return syntacticKind(expr);
  const name = ts.getNameOfDeclaration(declaration)?.getText();
  if (name === "only") return enclosingNamespace(declaration) === "suite" ? "suite" : "test";
  return KINDS.find((kind) => kind === name);
}

/** `test.skip` and kin where the checker cannot see node:test (an `any`, a missing import). */
function syntacticKind(expr: ts.Expression): TestApiKind | undefined {
  if (!ts.isPropertyAccessExpression(expr) || !ts.isIdentifier(expr.expression)) return undefined;
  if (!REGISTRARS.has(expr.expression.text)) return undefined;
  const name = expr.name.text;
  return name === "skip" || name === "todo" ? name : undefined;
}

/** The leftmost name of `a.b.c`. */
function rootName(expr: ts.Expression): string | undefined {
  let node = expr;
  while (ts.isPropertyAccessExpression(node)) node = node.expression;
  return ts.isIdentifier(node) ? node.text : undefined;
}

/**
 * Whether a call is an assertion: node:assert's, anything reached through a name `assert`
 * (`assert.equal`, `assert.rejects`), or a runner's `.assert` (fast-check's `fc.assert`).
 */
export function isAssertionCall(checker: ts.TypeChecker, call: ts.CallExpression): boolean {
  const callee = call.expression;
  if (rootName(callee) === "assert") return true;
  if (ts.isPropertyAccessExpression(callee) && callee.name.text === "assert") return true;
  return declaredIn(resolvedSymbol(checker, callee), NODE_ASSERT_TYPES) !== undefined;
}

/** Whether a type is the brand only skipWhen gives: a string carrying skipWhen's own symbol. */
function isSkipWhenReason(type: ts.Type): boolean {
  if (!type.isIntersection()) return false;
  const stringLike = type.types.some((t) => (t.flags & ts.TypeFlags.StringLike) !== 0);
  const branded = type
    .getProperties()
    .some((p) => p.declarations?.some((d) => SKIP_WHEN_FILE.test(d.getSourceFile().fileName)));
  return stringLike && branded;
}

function isFalseOrAbsent(checker: ts.TypeChecker, type: ts.Type): boolean {
  if ((type.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void | ts.TypeFlags.Never)) !== 0) {
    return true;
  }
  return (type.flags & ts.TypeFlags.BooleanLiteral) !== 0 && checker.typeToString(type) === "false";
}

/**
 * The parts of a `skip` option's type that did not come from skipWhen, as the checker prints
 * them; empty when every part is skipWhen's reason, false or absent.
 */
export function unbrandedSkipParts(checker: ts.TypeChecker, type: ts.Type): string[] {
  const parts = type.isUnion() ? type.types : [type];
  return parts
    .filter((t) => !isFalseOrAbsent(checker, t) && !isSkipWhenReason(t))
    .map((t) => checker.typeToString(t));
}

/** The parts of a `todo` option's type that would mark the test todo. */
export function todoParts(checker: ts.TypeChecker, type: ts.Type): string[] {
  const parts = type.isUnion() ? type.types : [type];
  return parts.filter((t) => !isFalseOrAbsent(checker, t)).map((t) => checker.typeToString(t));
}

/** A function written in place, or the one a name refers to, with its body. */
export function functionBody(
  checker: ts.TypeChecker,
  expr: ts.Expression,
): ts.FunctionLikeDeclaration | undefined {
  if (ts.isArrowFunction(expr) || ts.isFunctionExpression(expr)) return expr;
  for (const declaration of resolvedSymbol(checker, expr)?.declarations ?? []) {
    const found = bodyOfDeclaration(declaration);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The function a declaration makes: itself, or a function its initializer holds. */
export function bodyOfDeclaration(declaration: ts.Node): ts.FunctionLikeDeclaration | undefined {
  if (
    (ts.isFunctionDeclaration(declaration) || ts.isMethodDeclaration(declaration)) &&
    declaration.body !== undefined
  ) {
    return declaration;
  }
  if (
    (ts.isVariableDeclaration(declaration) || ts.isPropertyAssignment(declaration)) &&
    declaration.initializer !== undefined &&
    (ts.isArrowFunction(declaration.initializer) ||
      ts.isFunctionExpression(declaration.initializer))
  ) {
    return declaration.initializer;
  }
  return undefined;
}
