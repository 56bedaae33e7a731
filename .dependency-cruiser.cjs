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
    // Each agent is a folder that uses the kit beside it, never another agent's folder, and the
    // kit knows no agent: only src/agents/index.ts names them all.
    {
      name: "agent-folders-stand-alone",
      severity: "error",
      from: { path: "^src/agents/([^/]+)/" },
      to: { path: "^src/agents/[^/]+/", pathNot: "^src/agents/$1/" },
    },
    {
      name: "agents-kit-knows-no-agent",
      severity: "error",
      from: { path: "^src/agents/[^/]+[.]ts$", pathNot: "^src/agents/index[.]ts$" },
      to: { path: "^src/agents/[^/]+/" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
