// Codex's program as npm installs it: `codex` is a Node launcher (@openai/codex/bin/codex.js)
// that starts a native binary from a platform package (@openai/codex-linux-x64, -linux-arm64),
// installed beside it or nested under it. The launcher's own package holds no program, so the
// sandbox is given the native binary, started directly.
//
// The native binary sits in a layout of its own (`<layout>/bin/codex`, with
// `<layout>/codex-package.json`) and looks beside itself for what it bundles: ripgrep for its
// file search (`codex-path/rg`) and its helpers. Where that layout is there, the whole layout is
// bound, read-only, so the agent has the tools its program expects.
import { realpathSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { isExecutableFile } from "./executableFile.js";

/** The Linux platform packages of Codex, by Node's `process.arch`, and the target inside. */
export const CODEX_PLATFORMS: Readonly<Partial<Record<string, CodexPlatform>>> = {
  x64: { package: "@openai/codex-linux-x64", target: "x86_64-unknown-linux-musl" },
  arm64: { package: "@openai/codex-linux-arm64", target: "aarch64-unknown-linux-musl" },
};

export interface CodexPlatform {
  /** The npm package that holds the native binary. */
  readonly package: string;
  /** The target triple: the directory under `vendor/` that holds it. */
  readonly target: string;
}

/** The launcher's path within its package, which is `@openai/codex`. */
const LAUNCHER_TAIL = "/@openai/codex/bin/codex.js";

/** The file, beside `bin/`, that marks the native binary's layout. */
const LAYOUT_MANIFEST = "codex-package.json";

/** Whether a (real) path is Codex's npm launcher. Pure. */
export function isCodexLauncher(path: string): boolean {
  return path.endsWith(LAUNCHER_TAIL);
}

/**
 * Where the native binary may be for the launcher at `launcher`, in the order npm may put it:
 * nested in the launcher's package, beside it, and inside it (older packages shipped a
 * `vendor/` of their own). Empty on a platform Codex has no Linux package for. Pure.
 */
export function codexNativeCandidates(launcher: string, arch: string): string[] {
  const platform = CODEX_PLATFORMS[arch];
  if (platform === undefined || !isCodexLauncher(launcher)) return [];
  const codexPackage = dirname(dirname(launcher));
  const scope = dirname(codexPackage);
  const inVendor = (root: string): string => join(root, "vendor", platform.target, "bin", "codex");
  return [
    inVendor(join(codexPackage, "node_modules", platform.package)),
    inVendor(join(dirname(scope), platform.package)),
    inVendor(codexPackage),
  ];
}

/**
 * The native binary the launcher at `launcher` would start, symlinks resolved; undefined when
 * none is installed. Reads the disk.
 */
export function findCodexNative(launcher: string, arch: string = process.arch): string | undefined {
  const found = codexNativeCandidates(launcher, arch).find(isExecutableFile);
  return found === undefined ? undefined : realpathSync(found);
}

/**
 * The layout directory of a native Codex binary (`<layout>/bin/codex` beside
 * `<layout>/codex-package.json`), or undefined when the binary is not in one. Reads the disk.
 */
export function codexLayout(native: string): string | undefined {
  const bin = dirname(native);
  if (basename(bin) !== "bin") return undefined;
  const layout = dirname(bin);
  try {
    return statSync(join(layout, LAYOUT_MANIFEST)).isFile() ? layout : undefined;
  } catch {
    return undefined;
  }
}
