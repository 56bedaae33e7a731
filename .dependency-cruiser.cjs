// The layering of DESIGN.md: arrows only point down
// (cli -> web -> host -> store/sandbox/egress/guest/agents -> protocol -> lang), and nothing cycles.
// lang is the bottom floor: every folder may import it, and it imports only Node's own modules.
const layer = (from, allowed) => ({
  name: `${from}-imports-only-${allowed.join("-") || "nothing"}`,
  severity: "error",
  from: { path: `^src/${from}/` },
  to: {
    path: "^src/",
    pathNot: [`^src/${from}/`, "^src/lang/", ...allowed.map((a) => `^src/${a}/`)],
  },
});

module.exports = {
  forbidden: [
    { name: "no-circular", severity: "error", from: {}, to: { circular: true } },
    {
      name: "lang-imports-only-node",
      severity: "error",
      from: { path: "^src/lang/" },
      to: { pathNot: "^src/lang/", dependencyTypesNot: ["core"] },
    },
    layer("protocol", []),
    layer("store", ["protocol"]),
    layer("agents", ["protocol"]),
    layer("guest", ["protocol", "agents"]),
    layer("sandbox", ["protocol"]),
    layer("egress", ["protocol"]),
    layer("host", ["protocol", "store", "agents", "sandbox", "egress"]),
    layer("config", ["protocol", "store"]),
    layer("fleet", ["protocol", "host", "store", "config"]),
    layer("web", ["protocol", "host", "store", "config"]),
    layer("cli", ["protocol", "host", "store", "config", "web", "fleet"]),
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
    // A folder's face is its index.ts: other folders import nothing else of it, so what the
    // face leaves out stays the folder's own. The host reaches its channel the same way.
    {
      name: "folders-meet-at-their-faces",
      severity: "error",
      from: { path: "^src/([^/]+)/" },
      to: { path: "^src/[^/]+/", pathNot: ["^src/$1/", "^src/[^/]+/index[.]ts$"] },
    },
    {
      name: "host-reaches-channel-through-its-face",
      severity: "error",
      from: { path: "^src/host/", pathNot: "^src/host/channel/" },
      to: { path: "^src/host/channel/", pathNot: "^src/host/channel/index[.]ts$" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: [".ts", ".js"] },
  },
};
