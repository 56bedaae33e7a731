// Picks a backend by name, and says which backends work on this machine.
import { BwrapBackend, type BwrapBackendOptions } from "./bwrapBackend.js";
import { NoneBackend, type NoneBackendOptions } from "./noneBackend.js";
import type { SandboxBackend, SandboxName } from "./sandboxBackend.js";
import type { SandboxCheckMemo } from "./sandboxCheckMemo.js";
import type { WorkspaceMeter } from "./workspaceMeter.js";

export const SANDBOX_NAMES: readonly SandboxName[] = ["bwrap", "none"];

/** The backend warden uses when none is named: it never picks `none` by itself. */
export const DEFAULT_SANDBOX: SandboxName = "bwrap";

export interface SandboxBackendOptions {
  bwrap?: BwrapBackendOptions;
  none?: NoneBackendOptions;
  /** Where the checks before a task are remembered; without it each check is made anew. */
  checks?: SandboxCheckMemo;
  /**
   * Measures the workspaces of every sandbox started with these options together: a process
   * that runs many tasks gives them one. Without it each backend has its own.
   */
  meter?: WorkspaceMeter;
}

export function sandboxBackend(name: "bwrap", options?: SandboxBackendOptions): BwrapBackend;
export function sandboxBackend(name: "none", options?: SandboxBackendOptions): NoneBackend;
export function sandboxBackend(name: SandboxName, options?: SandboxBackendOptions): SandboxBackend;
export function sandboxBackend(
  name: SandboxName,
  options: SandboxBackendOptions = {},
): SandboxBackend {
  switch (name) {
    case "bwrap":
      return new BwrapBackend(
        options.meter === undefined ? options.bwrap : { ...options.bwrap, meter: options.meter },
      );
    case "none":
      return new NoneBackend(options.none);
  }
}

export type BackendReport =
  | { name: SandboxName; isolated: boolean; ok: true; detail: string }
  | { name: SandboxName; isolated: boolean; ok: false; why: string; fix: string };

/** Checks every backend, for `warden doctor`: which work here, and why the others do not. */
export async function checkBackends(options: SandboxBackendOptions = {}): Promise<BackendReport[]> {
  const reports: BackendReport[] = [];
  for (const name of SANDBOX_NAMES) {
    const backend = sandboxBackend(name, options);
    reports.push({ name, isolated: backend.isolated, ...(await backend.check()) });
  }
  return reports;
}
