// The metadata server on loopback: what the agent (and anything else in the sandbox) may ask
// about its task without an SDK. Read only, GET and HEAD only, YAML for the data.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { MAIN_WORKSPACE, TASK_BRANCH_SHORT, type Settings } from "../protocol/index.js";

/** A request that has not sent its headers by then is dropped: the server is tiny and local. */
const HEADERS_TIMEOUT_MS = 10_000;

export const METADATA_PATHS = {
  health: "/healthz",
  ready: "/readyz",
  task: "/metadata/v1/task",
  workspaces: "/metadata/v1/workspaces",
} as const;

export interface Workspace {
  readonly path: string;
  readonly base: string;
  readonly branch: string;
  /** MAIN_WORKSPACE for the task's own repository, else the name it was bound under. */
  readonly name?: string;
  /** The repository on the host it was cloned from, where the host named it. */
  readonly source?: string;
}

/**
 * The settings as the metadata server shows them: an allow list, so that a setting added later
 * (a credential, say) stays private until someone decides to show it. The command line is left
 * out because it may carry credentials of its own.
 */
export function publicSettings(settings: Settings): Record<string, unknown> {
  const shown: Record<string, unknown> = {
    taskId: settings.taskId,
    parentTaskId: settings.parentTaskId,
    hop: settings.hop ?? 0,
    agent: settings.agent,
    model: settings.model,
    maxTurns: settings.maxTurns,
    maxBudgetUSD: settings.maxBudgetUSD,
    timeoutSeconds: settings.timeoutSeconds,
    gitName: settings.gitName,
    gitEmail: settings.gitEmail,
  };
  return Object.fromEntries(Object.entries(shown).filter(([, value]) => value !== undefined));
}

/** Writes a value as one YAML document (the `yaml` library's stringify). */
export type YamlText = (value: unknown) => string;

/** The task document: the public settings, and the workspace once it is ready. */
export function taskDocument(
  yamlText: YamlText,
  settings: Settings,
  workspace: Workspace | undefined,
): string {
  return yamlText({
    ...publicSettings(settings),
    ...(workspace === undefined
      ? {}
      : { workspace: workspace.path, base: workspace.base, branch: workspace.branch }),
  });
}

/** One YAML document per workspace, each starting with `---`, the task's own first. */
export function workspacesDocument(yamlText: YamlText, workspaces: readonly Workspace[]): string {
  return workspaces
    .map(
      (w) =>
        `---\n${yamlText({
          ...(w.name === undefined ? {} : { name: w.name }),
          path: w.path,
          base: w.base,
          branch: w.branch,
          ...(w.source === undefined ? {} : { source: w.source }),
        })}`,
    )
    .join("");
}

/** A workspace bound beside the task's own, as the runner cloned it. */
export interface BoundWorkspaceFacts {
  readonly name: string;
  readonly path: string;
  readonly base: string;
  readonly source: string;
}

export interface MetadataServer {
  /** `http://127.0.0.1:<port>`, for WARDEN_METADATA_URL. */
  readonly url: string;
  /**
   * The workspace is cloned and on the task branch, and so is every bound one: /readyz turns
   * 200, and /metadata/v1/workspaces lists them all in binding order.
   */
  setReady(
    workspace: { path: string; base: string; source?: string | undefined },
    bound?: readonly BoundWorkspaceFacts[],
  ): void;
  close(): Promise<void>;
}

function send(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  type: "text/plain" | "application/yaml",
  body: string,
  headers: Record<string, string> = {},
): void {
  const bytes = Buffer.from(body);
  response.writeHead(status, {
    "content-type": `${type}; charset=utf-8`,
    "content-length": String(bytes.length),
    "cache-control": "no-store",
    ...headers,
  });
  response.end(request.method === "HEAD" ? undefined : bytes);
}

/** Answers with a YAML document, once the YAML writer is loaded (on the first such request). */
function sendYaml(
  request: IncomingMessage,
  response: ServerResponse,
  document: (yamlText: YamlText) => string,
): void {
  import("./yamlText.js").then(
    ({ yamlText }) => {
      send(request, response, 200, "application/yaml", document(yamlText));
    },
    () => {
      send(request, response, 500, "text/plain", "the YAML writer could not be loaded\n");
    },
  );
}

/** Starts the server on 127.0.0.1 at `port` (0 = any free port). */
export async function startMetadataServer(options: {
  settings: Settings;
  port: number;
}): Promise<MetadataServer> {
  let workspace: Workspace | undefined;
  let bound: readonly Workspace[] = [];
  const server = createServer((request, response) => {
    if (request.method !== "GET" && request.method !== "HEAD") {
      send(request, response, 405, "text/plain", "only GET and HEAD\n", { allow: "GET, HEAD" });
      return;
    }
    const path = new URL(request.url ?? "/", "http://localhost").pathname;
    switch (path) {
      case METADATA_PATHS.health:
        send(request, response, 200, "text/plain", "ok\n");
        return;
      case METADATA_PATHS.ready:
        if (workspace === undefined) send(request, response, 503, "text/plain", "not ready\n");
        else send(request, response, 200, "text/plain", "ready\n");
        return;
      case METADATA_PATHS.task: {
        const ready = workspace;
        sendYaml(request, response, (yamlText) => taskDocument(yamlText, options.settings, ready));
        return;
      }
      case METADATA_PATHS.workspaces:
        if (workspace === undefined) send(request, response, 503, "text/plain", "not ready\n");
        else {
          const all = [workspace, ...bound];
          sendYaml(request, response, (yamlText) => workspacesDocument(yamlText, all));
        }
        return;
      default:
        send(request, response, 404, "text/plain", "not found\n");
    }
  });
  server.headersTimeout = HEADERS_TIMEOUT_MS;
  server.requestTimeout = HEADERS_TIMEOUT_MS;
  server.listen(options.port, "127.0.0.1");
  await new Promise<void>((resolve, reject) => {
    server.once("listening", resolve);
    server.once("error", reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    setReady: (ready, others = []) => {
      bound = others.map((w) => ({
        name: w.name,
        path: w.path,
        base: w.base,
        branch: TASK_BRANCH_SHORT,
        source: w.source,
      }));
      workspace = {
        name: MAIN_WORKSPACE,
        path: ready.path,
        base: ready.base,
        branch: TASK_BRANCH_SHORT,
        ...(ready.source === undefined ? {} : { source: ready.source }),
      };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
