// Where the verbs' store is: --store, WARDEN_STORE, or the user's own config file, never a
// repository's; credentials go only to the server they were given for, and no password is shown.
import assert from "node:assert/strict";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { planStoreAddress } from "../../src/cli/storeAddress.js";
import { cleanEnv, runCli } from "../e2e/fixtures.js";
import { describeCli } from "../support/cliSuite.js";

const config = (setting: Parameters<typeof planStoreAddress>[2]) => setting;

test("--store wins over WARDEN_STORE, and WARDEN_STORE over the user's config", () => {
  const user = config({ setting: "nats://from-config:4222", file: "/u/config.yaml" });
  const env = { WARDEN_STORE: "nats://from-env:4222" };
  assert.deepEqual(planStoreAddress("nats://from-flag:4222", env, user), {
    kind: "fleet",
    servers: "nats://from-flag:4222",
    from: "--store",
  });
  assert.equal(
    (planStoreAddress(undefined, env, user) as { servers: string }).servers,
    "nats://from-env:4222",
  );
  assert.equal((planStoreAddress(undefined, {}, user) as { from: string }).from, "/u/config.yaml");
  assert.deepEqual(planStoreAddress("local", env, user), { kind: "local" });
  assert.deepEqual(planStoreAddress(undefined, {}, undefined), { kind: "local" });
});

test("a URL's user and password become credentials, and the servers keep neither", () => {
  const address = planStoreAddress("nats://al%40ice:s3cret@fleet:4222", {}, undefined);
  assert.deepEqual(address, {
    kind: "fleet",
    servers: "nats://fleet:4222",
    from: "--store",
    credentials: { kind: "password", user: "al@ice", password: "s3cret" },
  });
});

test("the config's credentials go to the config's own host and to no other server", () => {
  const user = config({
    setting: { url: "nats://fleet:4222", user: "alice", password: "s3cret" },
    file: "/u/config.yaml",
  });
  const same = planStoreAddress("nats://fleet:4222", {}, user);
  assert.deepEqual((same as { credentials?: unknown }).credentials, {
    kind: "password",
    user: "alice",
    password: "s3cret",
  });
  const other = planStoreAddress("nats://elsewhere:4222", {}, user);
  assert.equal((other as { credentials?: unknown }).credentials, undefined);
  const seed = config({
    setting: { url: "nats://fleet:4222", nkeySeedFile: "/u/fleet.nk" },
    file: "/u/config.yaml",
  });
  assert.deepEqual(
    (planStoreAddress(undefined, {}, seed) as { credentials?: unknown }).credentials,
    {
      kind: "nkey",
      seedFile: "/u/fleet.nk",
    },
  );
});

test("a store that is not a nats URL is refused without repeating what was given", () => {
  assert.throws(
    () => planStoreAddress("http://user:hunter2@fleet:4222", {}, undefined),
    (error: Error & { code?: string }) =>
      error.code === "BAD_STORE" && !error.message.includes("hunter2"),
  );
});

describeCli("the store in config files", (ws) => {
  const home = (): string => join(ws.root, "config-home");
  async function write(path: string, text: string): Promise<void> {
    await mkdir(join(path, ".."), { recursive: true });
    await writeFile(path, text);
  }

  test("warden config never shows the store's password, in text or JSON", async () => {
    await write(
      join(home(), "warden", "config.yaml"),
      "store:\n  url: nats://alice:hunter2@127.0.0.1:4222\n  password: hunter3\n",
    );
    const env = cleanEnv({ XDG_CONFIG_HOME: home() });
    for (const args of [["config"], ["config", "--json"]]) {
      const shown = await runCli(ws.dataDir, [...args, "--repo", ws.repo], { env });
      assert.equal(shown.code, 0, shown.stderr);
      assert.match(shown.stdout, /nats:\/\/alice@127\.0\.0\.1:4222/);
      assert.doesNotMatch(shown.stdout + shown.stderr, /hunter/);
    }
  });

  test("a repository's file that names a store is ignored, with a warning", async () => {
    await write(join(ws.repo, ".warden", "config.yaml"), "store: nats://127.0.0.1:1\n");
    const env = cleanEnv({ XDG_CONFIG_HOME: join(ws.root, "nowhere") });
    const shown = await runCli(ws.dataDir, ["config", "--repo", ws.repo], { env });
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stderr, /store/);
    const listed = await runCli(ws.dataDir, ["ls", "-q"], { env, cwd: ws.repo });
    assert.equal(listed.code, 0, listed.stderr);
  });
});
