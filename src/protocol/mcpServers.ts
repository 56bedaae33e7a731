// The MCP servers and skills a task gives its agent, as task.json carries them: checked by the
// host when the task is made and by the runner before it writes any agent's configuration. The
// shape of a server is Claude Code's (`{"type": "stdio", "command", "args", "env"}` or
// `{"type": "http" | "sse", "url", "headers"}`), which the runner renders for each agent.
import * as z from "zod/mini";
import { miniSchema } from "./miniSchema.js";
import { MCP_LIMITS } from "./limits.js";

/**
 * A server's name: it becomes part of tool names (`mcp__NAME__TOOL`), a TOML key (Codex) and a
 * JSON key (Gemini), so it is a plain word. `__` is refused because Claude Code splits tool
 * names on it.
 */
export const MCP_SERVER_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/u;

/**
 * Names no task's server may take: warden's own permission-prompt server is `warden`, and a
 * server of that name would answer the agent's permission prompts in the host's place.
 */
export const RESERVED_MCP_SERVER_NAMES: readonly string[] = ["warden"];

/** The folder of the task share that holds the task's skills, one folder per skill. */
export const SHARE_SKILLS_DIR = "skills";

/** The file that makes a folder a skill. */
export const SKILL_FILE = "SKILL.md";

/** A skill's name, the name of its folder: a plain word, never `.`, `..` or hidden. */
export const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/u;

// Control and format characters in anything that reaches a command line or a config file.
// eslint-disable-next-line no-control-regex -- matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\p{Cf}\p{Cs}]/u;

const mcpText = miniSchema(() =>
  z.string("is not a string").check(
    z.refine(
      (t) => Buffer.byteLength(t) <= MCP_LIMITS.textBytes,
      `is over ${MCP_LIMITS.textBytes} bytes`,
    ),
    z.refine((t) => !CONTROL.test(t), "has a control character"),
  ),
);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/u;
/** A header's name as RFC 9110 spells a token. */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/u;

const textMap = (name: RegExp, what: string) =>
  z
    .record(
      z.string().check(z.regex(name, `is not ${what}`)),
      mcpText(),
      "is not a mapping of strings",
    )
    .check(
      z.refine(
        (map) => Object.keys(map).length <= MCP_LIMITS.mapEntries,
        `has more than ${MCP_LIMITS.mapEntries} entries`,
      ),
    );

const stdioServer = miniSchema(() =>
  z.strictObject({
    type: z.optional(z.literal("stdio")),
    command: mcpText().check(
      z.refine((c) => c.length > 0, "is empty"),
      z.refine((c) => !c.startsWith("-"), "starts with '-'"),
    ),
    args: z.optional(
      z.array(mcpText(), "is not a list of strings").check(z.maxLength(MCP_LIMITS.args)),
    ),
    env: z.optional(textMap(ENV_NAME, "a variable name")),
  }),
);

const remoteServer = miniSchema(() =>
  z.strictObject({
    type: z.enum(["http", "sse"], "is not stdio, http or sse"),
    url: mcpText().check(
      z.refine((u) => remoteUrl(u) !== undefined, "is not an http(s) URL with a host"),
    ),
    headers: z.optional(textMap(HEADER_NAME, "a header name")),
  }),
);

export type McpStdioServer = z.infer<ReturnType<typeof stdioServer>>;
export type McpRemoteServer = z.infer<ReturnType<typeof remoteServer>>;
export type McpServer = McpStdioServer | McpRemoteServer;

/** Where a remote server is: its URL's host and port, as the allow list matches them. */
export interface McpEndpoint {
  readonly host: string;
  readonly port: number;
}

/** The host and port of an http(s) URL with a host and no credentials; undefined otherwise. */
export function remoteUrl(text: string): McpEndpoint | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  if (url.hostname === "" || url.username !== "" || url.password !== "") return undefined;
  const port = url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port);
  // The URL keeps an IPv6 host in brackets; the allow list writes the address bare.
  return { host: url.hostname.replace(/^\[(.*)\]$/u, "$1"), port };
}

/** Whether a server runs as a command in the sandbox (stdio) or is reached over the network. */
export function mcpServerKind(server: McpServer): "stdio" | "http" | "sse" {
  return "url" in server ? server.type : "stdio";
}

/** A set of servers by name: names checked, warden's own refused, the count bounded. */
export const mcpServersSchema = miniSchema(() =>
  z
    .record(
      z.string(),
      z.union([stdioServer(), remoteServer()], "is not a stdio, http or sse server"),
    )
    .check(
      z.superRefine((servers, ctx) => {
        const names = Object.keys(servers);
        if (names.length > MCP_LIMITS.servers) {
          ctx.addIssue({ code: "custom", message: `has more than ${MCP_LIMITS.servers} servers` });
        }
        for (const name of names) {
          if (!MCP_SERVER_NAME.test(name) || name.includes("__")) {
            ctx.addIssue({
              code: "custom",
              message: "is not a server name: a letter, then letters, digits, - or _ (not __)",
              path: [name],
            });
          } else if (RESERVED_MCP_SERVER_NAMES.includes(name.toLowerCase())) {
            ctx.addIssue({ code: "custom", message: "is warden's own server", path: [name] });
          }
        }
        if (Buffer.byteLength(JSON.stringify(servers)) > MCP_LIMITS.serversBytes) {
          ctx.addIssue({
            code: "custom",
            message: `take more than ${MCP_LIMITS.serversBytes} bytes together`,
          });
        }
      }),
    ),
);

export type McpServers = Record<string, McpServer>;

/** The names of a task's skills: plain folder names, each once, bounded in number. */
export const skillNamesSchema = miniSchema(() =>
  z.array(z.string().check(z.regex(SKILL_NAME, "is not a skill's folder name"))).check(
    z.maxLength(MCP_LIMITS.skills, `has more than ${MCP_LIMITS.skills} skills`),
    z.refine((names) => new Set(names).size === names.length, "names a skill twice"),
  ),
);
