// warden/sandbox: one interface, one backend per isolation kind. Imports only protocol.
export {
  sandboxBackend,
  checkBackends,
  SANDBOX_NAMES,
  DEFAULT_SANDBOX,
  type BackendReport,
  type SandboxBackendOptions,
} from "./sandboxBackends.js";
export type {
  SandboxBackend,
  SandboxName,
  SandboxPlan,
  SandboxExit,
  RunningSandbox,
  BackendCheck,
} from "./sandboxBackend.js";
export type { SandboxCommand, SandboxFd } from "./sandboxCommand.js";
export {
  checkRequest,
  type SandboxRequest,
  type SandboxSocket,
  type SandboxLimits,
  type RequestHost,
} from "./sandboxRequest.js";
export { SandboxUnavailableError, BadSandboxRequestError, SandboxStartError } from "./errors.js";
export { BwrapBackend, type BwrapBackendOptions } from "./bwrapBackend.js";
export { NoneBackend, type NoneBackendOptions } from "./noneBackend.js";
export { planBwrap, bwrapBaseEnv, type BwrapPlan, type BwrapMount } from "./planBwrap.js";
export { renderBwrap } from "./renderBwrap.js";
export {
  planNone,
  renderNone,
  NOT_ISOLATED_WARNING,
  type NonePlan,
  type NoneHost,
} from "./planNone.js";
export { probeBwrapHost, type BwrapHost, type SystemDir } from "./bwrapHost.js";
export { probeCgroupHost, type CgroupHost, type CgroupSite } from "./cgroupHost.js";
export { planCgroup, type CgroupPlan } from "./planCgroup.js";
export { SANDBOX_LIMITS } from "./sandboxLimits.js";
export { SANDBOX_BOUNDS, type SandboxBound, type SandboxBoundName } from "./sandboxBounds.js";
export { BoundUnavailableError, BadSandboxIdentityError } from "./errors.js";
export {
  sandboxIdentity,
  probeSandboxIdentity,
  describeIdentity,
  SANDBOX_UID_VARIABLE,
  type SandboxIdentity,
} from "./sandboxIdentity.js";
export { DENIED_SYSCALLS, type DeniedSyscall, type SeccompArch } from "./syscallTable.js";
export { seccompBytes, seccompArch, type SeccompPlan } from "./seccompFilter.js";
export { SANDBOX_PATHS, RUNNER_FLAGS, RUNNER_ENV } from "./sandboxPaths.js";
