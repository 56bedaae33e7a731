// Which functions in the test files assert, directly or through a helper that does: a fixpoint
// over the call graph, so a test that calls a helper that calls one that asserts counts.
import ts from "typescript";
import { functionBody, isAssertionCall, resolvedSymbol } from "./nodeTestCalls.js";

type Body = ts.FunctionLikeDeclaration;

function hasBody(node: ts.Node): node is Body {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** The name a function is known by: its own, or that of the variable or property holding it. */
function nameOf(body: Body): string | undefined {
  const named = ts.isArrowFunction(body) || ts.isFunctionExpression(body) ? body.parent : body;
  if (
    (ts.isFunctionDeclaration(named) ||
      ts.isMethodDeclaration(named) ||
      ts.isVariableDeclaration(named) ||
      ts.isPropertyAssignment(named)) &&
    named.name !== undefined &&
    ts.isIdentifier(named.name)
  ) {
    return named.name.text;
  }
  return undefined;
}

/**
 * The callee's name when the checker cannot lead to its body but the test files may hold it: a
 * method of an interface the tests declare (implemented by an object they build), or an `any`.
 */
function nameToLookUp(
  checker: ts.TypeChecker,
  checked: ReadonlySet<ts.SourceFile>,
  call: ts.CallExpression,
): string | undefined {
  const callee = call.expression;
  const name = ts.isPropertyAccessExpression(callee) ? callee.name : callee;
  if (!ts.isIdentifier(name)) return undefined;
  const declarations = resolvedSymbol(checker, callee)?.declarations ?? [];
  return declarations.every((d) => checked.has(d.getSourceFile())) ? name.text : undefined;
}

/**
 * Every function in `files` that asserts. A function asserts when it calls an assertion, calls a
 * function of `files` that asserts, or holds a nested function that does (a callback it passes
 * on is taken to run). A callee the checker cannot lead to is looked up by name in `files`.
 */
export function assertingFunctions(
  checker: ts.TypeChecker,
  files: readonly ts.SourceFile[],
): ReadonlySet<ts.Node> {
  const checked = new Set(files);
  const asserting = new Set<ts.Node>();
  // For each function, the functions that reach it: its callers and its enclosing function.
  const reachedFrom = new Map<ts.Node, ts.Node[]>();
  const link = (from: Body | undefined, to: Body): void => {
    if (from === undefined || from === to) return;
    const list = reachedFrom.get(to);
    if (list === undefined) reachedFrom.set(to, [from]);
    else list.push(from);
  };

  const named = new Map<string, Body[]>();
  const byName: { from: Body; name: string }[] = [];

  const visit = (node: ts.Node, current: Body | undefined): void => {
    let inside = current;
    if (hasBody(node)) {
      link(current, node);
      inside = node;
      const name = nameOf(node);
      if (name !== undefined) named.set(name, [...(named.get(name) ?? []), node]);
    }
    if (ts.isCallExpression(node) && inside !== undefined) {
      if (isAssertionCall(checker, node)) {
        asserting.add(inside);
      } else {
        const callee = functionBody(checker, node.expression);
        const name = callee === undefined ? nameToLookUp(checker, checked, node) : undefined;
        if (callee !== undefined && checked.has(callee.getSourceFile())) link(inside, callee);
        else if (name !== undefined) byName.push({ from: inside, name });
      }
    }
    ts.forEachChild(node, (child) => {
      visit(child, inside);
    });
  };
  for (const file of files) visit(file, undefined);
  for (const { from, name } of byName) for (const to of named.get(name) ?? []) link(from, to);

  const pending = [...asserting];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    for (const caller of reachedFrom.get(next) ?? []) {
      if (asserting.has(caller)) continue;
      asserting.add(caller);
      pending.push(caller);
    }
  }
  return asserting;
}
