// Lint is policy: these rules are the project's rules, not suggestions.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/"] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      "@typescript-eslint/switch-exhaustiveness-check": "error",
      "@typescript-eslint/consistent-type-imports": "error",
      "@typescript-eslint/restrict-template-expressions": ["error", { allowNumber: true }],
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_" },
      ],
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "CallExpression[callee.property.name='skip'][callee.object.name=/^(test|it|describe)$/]",
          message: "A skip is a test option with its reason: test(name, { skip: reason }, fn).",
        },
      ],
    },
  },
  {
    // The page shows text a sandbox wrote: it builds elements with textContent only, so nothing
    // a task says can ever be parsed as HTML.
    files: ["src/web/page/**/*.ts"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector:
            "MemberExpression[property.name=/^(innerHTML|outerHTML|insertAdjacentHTML|write|writeln|srcdoc)$/]",
          message: "The page never parses HTML: build elements with el() and textContent.",
        },
      ],
    },
  },
  {
    // The command writes its output through src/cli/standardStreams.ts, which keeps a start from
    // making Node's streams for its stdout and stderr and keeps the bytes in order once it does.
    files: ["src/cli/**/*.ts"],
    ignores: ["src/cli/standardStreams.ts"],
    rules: {
      "no-restricted-properties": [
        "error",
        ...["stdout", "stderr"].map((property) => ({
          object: "process",
          property,
          message: "Write through standardOut or standardError (src/cli/standardStreams.ts).",
        })),
      ],
    },
  },
  {
    files: ["**/*.js", "**/*.mjs", "**/*.cjs"],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ["**/*.cjs"],
    languageOptions: {
      sourceType: "commonjs",
      globals: { module: "writable", require: "readonly" },
    },
  },
  {
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: {
      // node:test's describe/test return promises the runner itself awaits.
      "@typescript-eslint/no-floating-promises": [
        "error",
        {
          allowForKnownSafeCalls: [
            { from: "package", package: "node:test", name: ["test", "describe", "it", "suite"] },
          ],
        },
      ],
    },
  },
);
