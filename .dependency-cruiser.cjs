// The layering of DESIGN.md: arrows only point down
// (cli -> host -> store/sandbox/egress/guest/agents -> protocol), and nothing cycles.
const layer = (from, allowed) => ({
  name: `${from}-imports-only-${allowed.join("-") || "nothing"}`,
  severity: "error",
  from: { path: `^src/${from}/` },
  to: {
    path: "^src/",
    pathNot: [`^src/${from}/`, ...allowed.map((a) => `^src/${a}/`)],
  },
});

module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", from: {}, to: { circular: true } },
    layer("protocol", []),
    layer("store", ["protocol"]),
    layer("agents", ["protocol"]),
    layer("guest", ["protocol", "agents"]),
    layer("sandbox", ["protocol"]),
    layer("egress", ["protocol"]),
    layer("host", ["protocol", "store", "agents", "sandbox", "egress"]),
    layer("cli", ["protocol", "host", "store"]),
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
