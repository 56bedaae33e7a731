// warden/sandbox: one interface, one backend per isolation kind. Imports only protocol.
export {
  sandboxBackend,
  checkBackends,
  DEFAULT_SANDBOX,
  type BackendReport,
  type SandboxBackendOptions,
} from "./sandboxBackends.js";
export type {
  BackendCheck,
  SandboxBackend,
  SandboxName,
  SandboxExit,
  RunningSandbox,
} from "./sandboxBackend.js";
export type { SandboxRequest } from "./sandboxRequest.js";
export {
  SandboxCheckMemo,
  type CheckMemoOptions,
  type CheckPass,
  type CheckPasses,
} from "./sandboxCheckMemo.js";
export {
  SandboxUnavailableError,
  BadSandboxRequestError,
  SandboxStartError,
  BoundUnavailableError,
  BadSandboxIdentityError,
} from "./errors.js";
export type { SandboxBound } from "./sandboxBounds.js";
export { WorkspaceMeter, type WorkspaceMeterOptions, type WorkspaceUse } from "./workspaceMeter.js";
