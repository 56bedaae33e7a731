// What stands for import.meta.url in warden's CommonJS bundles, which have none: the bundle
// file's own URL, made when the code first asks for it. Made as the file loads, it took about
// 3 ms of every start (a process's first pathToFileURL sets up Node's URL parser), though most
// commands never ask. The bundles sit one folder below dist/ as every file tsc emits does, so
// the paths the code finds from it (the runner, the package root) resolve the same.
export const moduleUrlOptions = {
  define: { "import.meta.url": "wardenModule.url" },
  banner: {
    js: 'const wardenModule = { get url() { return require("node:url").pathToFileURL(__filename).href; } };',
  },
};
