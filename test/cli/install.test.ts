// What `npm install -g` puts on a machine: the package npm packs from this clone, unpacked and
// linked the way npm lays out a global install, runs `warden` and finds its runner inside itself.
// Installing the tarball with npm itself would fetch the dependencies from the registry, which
// a test must not need, so the unpacked package borrows this clone's node_modules instead.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { describeCli } from "../support/cliSuite.js";
import { cleanEnv } from "../e2e/fixtures.js";

const execFileAsync = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface PackedManifest {
  version: string;
  bin: Record<string, string>;
}

describeCli("the installed package", () => {
  // Filled in by before(), ahead of every test.
  const prefix = { dir: "", pkg: "", bin: "" };

  before(async () => {
    prefix.dir = await mkdtemp(join(tmpdir(), "warden-install-"));
    // --ignore-scripts packs the dist/ this clone has: `prepare` would rebuild it under the
    // feet of other tests.
    const { stdout } = await execFileAsync(
      "npm",
      ["pack", "--ignore-scripts", "--json", "--pack-destination", prefix.dir],
      { cwd: ROOT, env: cleanEnv() },
    );
    const [packed] = JSON.parse(stdout) as { filename: string }[];
    assert.ok(packed !== undefined);
    const lib = join(prefix.dir, "lib", "node_modules");
    await mkdir(lib, { recursive: true });
    await execFileAsync("tar", ["-xzf", join(prefix.dir, packed.filename), "-C", lib]);
    prefix.pkg = join(lib, "warden");
    await execFileAsync("mv", [join(lib, "package"), prefix.pkg]);
    await symlink(join(ROOT, "node_modules"), join(prefix.pkg, "node_modules"));
    // npm links each bin into <prefix>/bin, pointing into the package.
    const manifest = JSON.parse(
      await readFile(join(prefix.pkg, "package.json"), "utf8"),
    ) as PackedManifest;
    prefix.bin = join(prefix.dir, "bin");
    await mkdir(prefix.bin);
    for (const [name, target] of Object.entries(manifest.bin)) {
      await symlink(join(prefix.pkg, target), join(prefix.bin, name));
    }
  });

  after(async () => {
    await rm(prefix.dir, { recursive: true, force: true });
  });

  async function warden(args: string[]): Promise<string> {
    const env = cleanEnv({ WARDEN_DATA_DIR: join(prefix.dir, "data") });
    const { stdout } = await execFileAsync(
      process.execPath,
      [join(prefix.bin, "warden"), ...args],
      {
        cwd: prefix.dir,
        env,
      },
    );
    return stdout;
  }

  test("every bin the package names is in the package and starts as a node program", async () => {
    const manifest = JSON.parse(
      await readFile(join(prefix.pkg, "package.json"), "utf8"),
    ) as PackedManifest;
    assert.deepEqual(Object.keys(manifest.bin).sort(), ["warden", "warden-guest"]);
    for (const target of Object.values(manifest.bin)) {
      const text = await readFile(join(prefix.pkg, target), "utf8");
      assert.ok(text.startsWith("#!/usr/bin/env node\n"), `${target} starts with a #! line`);
    }
  });

  test("the installed warden prints its version and finds the runner inside itself", async () => {
    const manifest = JSON.parse(
      await readFile(join(prefix.pkg, "package.json"), "utf8"),
    ) as PackedManifest;
    assert.equal((await warden(["--version"])).trim(), manifest.version);
    const doctor = JSON.parse(await warden(["doctor", "--json"])) as {
      checks: { name: string; ok: boolean; detail: string }[];
    };
    const runner = doctor.checks.find((check) => check.name === "runner");
    assert.deepEqual(runner, {
      name: "runner",
      ok: true,
      detail: join(prefix.pkg, "dist", "guest", "warden-guest.cjs"),
    });
  });
});
