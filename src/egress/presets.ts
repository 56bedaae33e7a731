// Named sets of allow-list entries for the services agents most often need. Each entry is in
// the allow-list grammar (a bare name means port 443) and is read by the same parser, so a
// preset can never allow more than the same words typed with --allow.

export const PRESETS = {
  /** The npm registry; tarballs are served from the same host. */
  npm: ["registry.npmjs.org"],
  /** The Python package index and the host its files are served from. */
  pypi: ["pypi.org", "files.pythonhosted.org"],
  /** git over HTTPS, the REST API, archives, raw files and release downloads. */
  github: [
    "github.com",
    "api.github.com",
    "codeload.github.com",
    "objects.githubusercontent.com",
    "raw.githubusercontent.com",
    "release-assets.githubusercontent.com",
  ],
  /**
   * The public Anthropic API, for an agent that holds its own key. The API relay is the usual
   * way: it keeps the key on the host and needs no allow-list entry.
   */
  anthropic: ["api.anthropic.com"],
  /** Debian's package mirrors, over HTTPS (the proxy serves CONNECT only, not plain http://). */
  debian: ["deb.debian.org", "security.debian.org"],
  /** The Go module proxy and checksum database. */
  go: ["proxy.golang.org", "sum.golang.org"],
  /** The Rust crate registry: its API, sparse index and downloads. */
  crates: ["crates.io", "index.crates.io", "static.crates.io"],
} as const satisfies Record<string, readonly string[]>;

export type PresetName = keyof typeof PRESETS;

export const PRESET_NAMES = Object.keys(PRESETS) as readonly PresetName[];

export function isPresetName(name: string): name is PresetName {
  return Object.hasOwn(PRESETS, name);
}
