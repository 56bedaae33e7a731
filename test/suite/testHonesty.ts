// The suite's honesty, checked from its source: every skip goes through skipWhen (which fails
// it in CI), no test passes by returning early or by not being registered on some machines, and
// every test asserts something. A pure function of the test files' text; node's and the
// project's own declarations are read from disk by the compiler, as tsc reads them.
import { dirname, relative, sep } from "node:path";
import ts from "typescript";
import { assertingFunctions } from "./assertionReach.js";
import {
  functionBody,
  isAssertionCall,
  testApiKind,
  todoParts,
  unbrandedSkipParts,
  type TestApiKind,
} from "./nodeTestCalls.js";

export type HonestyRule = "skip-route" | "early-return" | "conditional-test" | "no-assertion";

export interface HonestyFinding {
  /** The file, relative to the root the check was given. */
  readonly file: string;
  readonly line: number;
  readonly rule: HonestyRule;
  readonly says: string;
}

export interface HonestyInput {
  /** Each test file's text by its absolute path; a path need not exist on disk. */
  readonly sources: ReadonlyMap<string, string>;
  /** The project's compiler options (its tsconfig.json), so imports resolve as tsc does. */
  readonly options: ts.CompilerOptions;
  /** Where findings' paths are relative to. */
  readonly root: string;
}

/** A compiler host that serves `sources` first and everything else from disk. */
function hostOver(sources: ReadonlyMap<string, string>, options: ts.CompilerOptions) {
  const host = ts.createCompilerHost(options);
  const disk = {
    getSourceFile: host.getSourceFile.bind(host),
    fileExists: host.fileExists.bind(host),
    directoryExists:
      host.directoryExists?.bind(host) ?? ((path: string) => ts.sys.directoryExists(path)),
  };
  const folders = new Set([...sources.keys()].map((path) => dirname(path)));
  host.fileExists = (path) => sources.has(path) || disk.fileExists(path);
  // Module resolution looks for a folder before the files in it; a source's folder need not exist.
  host.directoryExists = (path) =>
    [...folders].some((f) => f === path || f.startsWith(path + sep)) || disk.directoryExists(path);
  host.readFile = (path) => sources.get(path) ?? ts.sys.readFile(path);
  host.getSourceFile = (path, language, onError) => {
    const text = sources.get(path);
    if (text === undefined) return disk.getSourceFile(path, language, onError);
    return ts.createSourceFile(path, text, language, true);
  };
  return host;
}

type Registration = { call: ts.CallExpression; kind: "test" | "suite" };

/** Whether `node` is a test's own callback, where registering a subtest is the test's logic. */
function isTestCallback(node: ts.Node, registrations: Map<ts.Node, Registration>): boolean {
  return registrations.get(node.parent)?.kind === "test" && ts.isFunctionLike(node);
}

/** The returns of a function's own body, leaving out those of functions nested in it. */
function ownReturns(fn: ts.FunctionLikeDeclaration): ts.ReturnStatement[] {
  const found: ts.ReturnStatement[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isReturnStatement(node)) found.push(node);
    if (ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    ts.forEachChild(node, visit);
  };
  if (fn.body !== undefined) ts.forEachChild(fn.body, visit);
  return found;
}

/** Whether `node` holds a call that asserts, directly or through a function that does. */
function holdsAssertion(
  checker: ts.TypeChecker,
  asserting: ReadonlySet<ts.Node>,
  node: ts.Node,
): boolean {
  if (ts.isCallExpression(node)) {
    if (isAssertionCall(checker, node)) return true;
    const callee = functionBody(checker, node.expression);
    if (callee !== undefined && asserting.has(callee)) return true;
  }
  const found = ts.forEachChild(node, (child) =>
    holdsAssertion(checker, asserting, child) ? true : undefined,
  );
  return found === true;
}

/**
 * Returns that end a body before its last statement without the branch they end having asserted
 * anything: such a return counts as a pass for a test that checked nothing. A branch that
 * asserts what holds in its mode and then returns is a test of that mode, and is not one.
 */
function earlyReturns(
  checker: ts.TypeChecker,
  asserting: ReadonlySet<ts.Node>,
  fn: ts.FunctionLikeDeclaration,
): ts.ReturnStatement[] {
  const body = fn.body;
  const last = body !== undefined && ts.isBlock(body) ? body.statements.at(-1) : undefined;
  return ownReturns(fn).filter((r) => {
    if (r === last) return false;
    if (!ts.isBlock(r.parent)) return true;
    const before = r.parent.statements.slice(0, r.parent.statements.indexOf(r));
    return !before.some((s) => holdsAssertion(checker, asserting, s));
  });
}

/**
 * Whether an `if` picks one case of a loop over cases (`agent === "gemini"` where `agent` comes
 * from the enclosing for-of): the same registrations on every machine, not a machine condition.
 */
function isCaseDispatch(checker: ts.TypeChecker, statement: ts.IfStatement): boolean {
  const condition = statement.expression;
  if (!ts.isBinaryExpression(condition)) return false;
  const op = condition.operatorToken.kind;
  if (
    op !== ts.SyntaxKind.EqualsEqualsEqualsToken &&
    op !== ts.SyntaxKind.ExclamationEqualsEqualsToken
  ) {
    return false;
  }
  const literal = (e: ts.Expression): boolean => ts.isStringLiteral(e) || ts.isNumericLiteral(e);
  const named = literal(condition.right)
    ? condition.left
    : literal(condition.left)
      ? condition.right
      : undefined;
  if (named === undefined || !ts.isIdentifier(named)) return false;
  const declaration = checker.getSymbolAtLocation(named)?.valueDeclaration;
  if (declaration === undefined) return false;
  for (let node: ts.Node = statement; !ts.isSourceFile(node); node = node.parent) {
    if (ts.isForOfStatement(node) && declaration.pos >= node.pos && declaration.end <= node.end) {
      return true;
    }
  }
  return false;
}

function holdsReturn(statement: ts.Statement): boolean {
  let found = false;
  const visit = (node: ts.Node): void => {
    if (ts.isReturnStatement(node)) found = true;
    if (found || ts.isFunctionLike(node) || ts.isClassLike(node)) return;
    ts.forEachChild(node, visit);
  };
  visit(statement);
  return found;
}

/**
 * The branch or early return that decides whether a registration happens, or undefined when it
 * always happens once the code around it runs. Loops are fine; a test's own body is its logic.
 */
function registeredUnless(
  checker: ts.TypeChecker,
  call: ts.CallExpression,
  registrations: Map<ts.Node, Registration>,
): ts.Node | undefined {
  let child: ts.Node = call;
  for (let parent = call.parent; !ts.isSourceFile(parent); parent = parent.parent) {
    if (isTestCallback(parent, registrations)) return undefined;
    if (
      ts.isIfStatement(parent) &&
      child !== parent.expression &&
      !isCaseDispatch(checker, parent)
    ) {
      return parent;
    }
    if (ts.isConditionalExpression(parent) && child !== parent.condition) return parent;
    if (ts.isCaseOrDefaultClause(parent)) return parent;
    if (ts.isBinaryExpression(parent) && child === parent.right) {
      const op = parent.operatorToken.kind;
      if (
        op === ts.SyntaxKind.AmpersandAmpersandToken ||
        op === ts.SyntaxKind.BarBarToken ||
        op === ts.SyntaxKind.QuestionQuestionToken
      ) {
        return parent;
      }
    }
    if (ts.isBlock(parent) && ts.isStatement(child)) {
      const before = parent.statements.slice(0, parent.statements.indexOf(child));
      const returning = before.find(holdsReturn);
      if (returning !== undefined) return returning;
    }
    child = parent;
  }
  return undefined;
}

/** The options argument's `name` property's type, or undefined where it has none. */
function optionType(checker: ts.TypeChecker, arg: ts.Expression, name: string) {
  const type = checker.getTypeAtLocation(arg);
  const property = type.getProperty(name);
  if (property === undefined) return undefined;
  const declaration = property.valueDeclaration ?? property.declarations?.[0];
  const within =
    declaration !== undefined &&
    declaration.getSourceFile() === arg.getSourceFile() &&
    declaration.pos >= arg.pos &&
    declaration.end <= arg.end;
  return { type: checker.getTypeOfSymbolAtLocation(property, arg), at: within ? declaration : arg };
}

/** Every finding in the test files of `input`, in file and line order. */
export function findDishonestTests(input: HonestyInput): HonestyFinding[] {
  const program = ts.createProgram({
    rootNames: [...input.sources.keys()],
    options: { ...input.options, noEmit: true },
    host: hostOver(input.sources, input.options),
  });
  const checker = program.getTypeChecker();
  const files = [...input.sources.keys()].flatMap((path) => program.getSourceFile(path) ?? []);
  const findings: HonestyFinding[] = [];
  const report = (node: ts.Node, rule: HonestyRule, says: string): void => {
    const file = node.getSourceFile();
    const { line } = file.getLineAndCharacterOfPosition(node.getStart(file));
    findings.push({ file: relative(input.root, file.fileName), line: line + 1, rule, says });
  };

  // Registrations first, so that the later rules can tell a test's body from its surroundings.
  const registrations = new Map<ts.Node, Registration>();
  const skips: { node: ts.Expression; kind: TestApiKind }[] = [];
  const collect = (node: ts.Node): void => {
    if (ts.isCallExpression(node) || ts.isPropertyAccessExpression(node)) {
      const callee = ts.isCallExpression(node) ? node.expression : node;
      const kind = testApiKind(checker, callee);
      if (ts.isCallExpression(node) && (kind === "test" || kind === "suite")) {
        registrations.set(node, { call: node, kind });
      }
      if (ts.isPropertyAccessExpression(node) && (kind === "skip" || kind === "todo")) {
        skips.push({ node, kind });
      }
    }
    ts.forEachChild(node, collect);
  };
  for (const file of files) collect(file);

  for (const { node, kind } of skips) {
    report(node, "skip-route", `\`${node.getText()}\` ${kind}s a test without skipWhen`);
  }

  const asserting = assertingFunctions(checker, files);
  for (const { call, kind } of registrations.values()) {
    const args = [...call.arguments];
    const last = args.at(-1);
    const callback = last === undefined ? undefined : functionBody(checker, last);
    for (const arg of args) {
      if (arg === last && callback !== undefined) continue;
      const skip = optionType(checker, arg, "skip");
      const unbranded = skip === undefined ? [] : unbrandedSkipParts(checker, skip.type);
      if (skip !== undefined && unbranded.length > 0) {
        const says = `a skip of type ${unbranded.join(" | ")} did not come from skipWhen`;
        report(skip.at, "skip-route", says);
      }
      const todo = optionType(checker, arg, "todo");
      if (todo !== undefined && todoParts(checker, todo.type).length > 0) {
        report(todo.at, "skip-route", "a todo option passes a test that does not pass");
      }
    }
    const decider = registeredUnless(checker, call, registrations);
    if (decider !== undefined) {
      report(call, "conditional-test", "registered only on some runs: skip with skipWhen instead");
    }
    if (callback !== undefined) {
      for (const early of earlyReturns(checker, asserting, callback)) {
        report(early, "early-return", `a ${kind} that returns early passes without its checks`);
      }
    }
    if (kind === "test" && (callback === undefined || !asserting.has(callback))) {
      report(call, "no-assertion", "a test whose body never asserts cannot fail");
    }
  }
  return findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}
