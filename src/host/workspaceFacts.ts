// What the host learned of each bound workspace when a task ended: its bundle checked as the
// task's own is (verifyChanges: the header against the base the host resolved for THAT
// repository, every object strictly in a scratch repository borrowing THAT repository's
// objects), then the guest's claims held against it, and the facts the terminal record keeps.
import { workspaceBundleName, type Result } from "../protocol/index.js";
import { verifyChanges, type BundleFacts } from "./verifyChanges.js";
import type { StoredWorkspace } from "./workspaceBindings.js";

export interface WorkspaceFacts {
  readonly workspace: StoredWorkspace;
  readonly bundle: BundleFacts;
}

/** Checks the bundle each bound workspace sent (`bundles` by name; none for an unchanged one). */
export async function verifyWorkspaces(
  workspaces: readonly StoredWorkspace[],
  bundles: Readonly<Record<string, { path: string }>>,
  missingPath: (name: string) => string,
  scratchParent: string,
): Promise<WorkspaceFacts[]> {
  const facts: WorkspaceFacts[] = [];
  for (const workspace of workspaces) {
    const bundle = await verifyChanges({
      bundle: bundles[workspace.name]?.path ?? missingPath(workspace.name),
      base: workspace.base,
      gitDir: workspace.gitDir,
      objectFormat: workspace.objectFormat,
      scratchParent,
    });
    facts.push({
      workspace,
      bundle:
        bundle.kind === "refused"
          ? {
              kind: "refused",
              error: `workspace ${workspace.name}: ${bundle.error.replace(/^changes\.bundle/, workspaceBundleName(workspace.name))}`,
            }
          : bundle,
    });
  }
  return facts;
}

/** Why the result's claims of the bound workspaces do not hold against the host's facts. */
export function workspaceClaimProblem(
  result: Result,
  facts: readonly WorkspaceFacts[],
): string | undefined {
  const claims = new Map((result.workspaces ?? []).map((claim) => [claim.name, claim]));
  const bound = new Set(facts.map((f) => f.workspace.name));
  for (const name of claims.keys()) {
    if (!bound.has(name)) return `result.json speaks of a workspace ${name} the task did not bind`;
  }
  if (claims.size !== (result.workspaces ?? []).length) {
    return "result.json speaks of one workspace twice";
  }
  for (const { workspace, bundle } of facts) {
    const claim = claims.get(workspace.name);
    const { name, base } = workspace;
    if (claim?.base !== undefined && claim.base !== base) {
      return `the sandbox says workspace ${name} started from ${claim.base}, but warden sent ${base}`;
    }
    switch (bundle.kind) {
      case "refused":
        return bundle.error;
      case "verified":
        if (claim?.head !== bundle.head) {
          return `result.json names the head ${claim?.head ?? "(none)"} of workspace ${name}, but its bundle holds ${bundle.head}`;
        }
        break;
      case "none":
        if (claim?.head !== undefined && claim.head !== base) {
          return `result.json names the head ${claim.head} of workspace ${name}, but the sandbox sent no bundle of it`;
        }
        break;
    }
  }
  return undefined;
}

/** The terminal record's facts of each bound workspace: only what the host checked. */
export function workspaceDetails(facts: readonly WorkspaceFacts[]): Record<string, unknown>[] {
  return facts.map(({ workspace, bundle }) => {
    const { name, repo, base } = workspace;
    if (bundle.kind === "verified") {
      return { name, repo, base, head: bundle.head, changes: true, commits: bundle.commits };
    }
    if (bundle.kind === "none") return { name, repo, base, head: base, changes: false };
    return { name, repo, base, changes: false, refused: true };
  });
}
