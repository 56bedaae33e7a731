// `warden completion`: the bash and zsh scripts, sourced in a real bash and zsh, completes verbs, options and the
// ids of the tasks in the store, by asking the built `warden` on the PATH as a user's shell would.
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "node:test";
import { promisify } from "node:util";
import { describeCli } from "../support/cliSuite.js";
import { skipWhen } from "../support/skipWhen.js";
import { CLI_MAIN, cleanEnv, idOf, runCli, type Workspace } from "../e2e/fixtures.js";

const execFileAsync = promisify(execFile);

/** A `warden` on a PATH of its own, as `npm install -g .` would put it. */
async function wardenOnPath(ws: Workspace): Promise<string> {
  const bin = join(ws.root, "bin");
  await mkdir(bin, { recursive: true });
  const program = join(bin, "warden");
  await writeFile(program, `#!/bin/sh\nexec '${process.execPath}' '${CLI_MAIN}' "$@"\n`);
  await chmod(program, 0o755);
  return bin;
}

/** The skip reason of the zsh test: zsh is a Debian package the test command installs as root. */
const NO_ZSH = skipWhen(
  spawnSync("zsh", ["-fc", "true"]).status === 0 ? false : "zsh is not installed",
);

/**
 * What `shell` offers for the line `words`, the last word being the one completed, after
 * sourcing `warden completion <shell>` the way the README says to. For zsh the words are handed
 * over as its bashcompinit hands them to a bash completion function: an array counted from 1,
 * with COMP_CWORD the number of words before the current one, and what the function offers
 * narrowed to the current word's prefix, as zsh's own matching does.
 */
async function complete(
  ws: Workspace,
  bin: string,
  words: string[],
  shell: "bash" | "zsh" = "bash",
  env: Record<string, string> = { WARDEN_DATA_DIR: ws.dataDir },
): Promise<string[]> {
  const script = [
    `source <(warden completion ${shell})`,
    'COMP_WORDS=("$@")',
    "COMP_CWORD=$(( $# - 1 ))",
    "_warden",
    'printf "%s\\n" "${COMPREPLY[@]}"',
  ].join("\n");
  const argv = shell === "bash" ? ["--norc", "-c", script, "bash"] : ["-f", "-c", script, "zsh"];
  const { stdout } = await execFileAsync(shell, [...argv, ...words], {
    env: cleanEnv({ ...env, HOME: ws.root, PATH: `${bin}:${process.env.PATH ?? ""}` }),
  });
  const offered = stdout.split("\n").filter((line) => line !== "");
  // zsh, not the function, keeps only what starts with the current word (compadd's matching).
  const current = words.at(-1) ?? "";
  return shell === "bash" ? offered : offered.filter((word) => word.startsWith(current));
}

/** A task in the store, for the ids to complete to. */
async function aTask(ws: Workspace): Promise<string> {
  return idOf(
    await runCli(ws.dataDir, ["create", "--repo", ws.repo, "--prompt", "t", "--", "true"]),
  );
}

describeCli("warden completion", (ws) => {
  test("bash completes verbs, a verb's options and the ids of the tasks in the store", async () => {
    const bin = await wardenOnPath(ws);
    const id = await aTask(ws);

    assert.deepEqual(await complete(ws, bin, ["warden", "sho"]), ["show"]);
    assert.deepEqual(await complete(ws, bin, ["warden", "run", "--ag"]), [
      "--agent",
      "--agent-program",
    ]);
    assert.deepEqual(await complete(ws, bin, ["warden", "--data-d"]), ["--data-dir"]);
    assert.deepEqual(await complete(ws, bin, ["warden", "completion", ""]), ["bash", "zsh"]);
    assert.deepEqual(await complete(ws, bin, ["warden", "completion", "bash", ""]), []);
    assert.deepEqual(await complete(ws, bin, ["warden", "show", ""]), [id, "@last"]);
    assert.deepEqual(await complete(ws, bin, ["warden", "diff", "--stat", id.slice(0, 4)]), [id]);
    // rm takes several ids; show takes one, and the word after it is not an id.
    assert.deepEqual(await complete(ws, bin, ["warden", "rm", id, ""]), [id, "@last"]);
    assert.deepEqual(await complete(ws, bin, ["warden", "show", id, ""]), []);
    // run takes no id, and the word after --repo is a path for bash's own file completion.
    assert.deepEqual(await complete(ws, bin, ["warden", "run", ""]), []);
    assert.deepEqual(await complete(ws, bin, ["warden", "send", "--message-file", ""]), []);
    // The ids come from the --data-dir on the line before they come from the environment.
    const elsewhere = { WARDEN_DATA_DIR: join(ws.root, "empty") };
    assert.deepEqual(await complete(ws, bin, ["warden", "show", ""], "bash", elsewhere), []);
    assert.deepEqual(
      await complete(ws, bin, ["warden", "--data-dir", ws.dataDir, "show", ""], "bash", elsewhere),
      [id, "@last"],
    );
  });

  test("bash offers @last among the ids, though it splits the word at the @", async () => {
    const bin = await wardenOnPath(ws);
    await aTask(ws);
    // As bash hands the words over: `@` is in COMP_WORDBREAKS, so `@l` comes as `@` and `l`.
    assert.deepEqual(await complete(ws, bin, ["warden", "show", "@"]), ["@last"]);
    assert.deepEqual(await complete(ws, bin, ["warden", "show", "@", "l"]), ["@last"]);
    assert.deepEqual(await complete(ws, bin, ["warden", "rm", "@", "last", "@"]), ["@last"]);
    // `@last` fills the one id of show: the word after it is not an id.
    assert.deepEqual(await complete(ws, bin, ["warden", "show", "@", "last", ""]), []);
    const elsewhere = { WARDEN_DATA_DIR: join(ws.root, "none-yet") };
    assert.deepEqual(await complete(ws, bin, ["warden", "show", "@"], "bash", elsewhere), []);
  });

  test(
    "zsh completes verbs, options and ids through its bashcompinit, as it hands words over",
    { skip: NO_ZSH },
    async () => {
      const bin = await wardenOnPath(ws);
      const id = await aTask(ws);
      const zsh = (words: string[]): Promise<string[]> => complete(ws, bin, words, "zsh");
      assert.deepEqual(await zsh(["warden", "sho"]), ["show"]);
      assert.deepEqual(await zsh(["warden", "run", "--ag"]), ["--agent", "--agent-program"]);
      const ids = await zsh(["warden", "show", ""]);
      assert.ok(ids.includes(id), ids.join(" "));
      assert.deepEqual(ids, await complete(ws, bin, ["warden", "show", ""]));
      assert.deepEqual(await zsh(["warden", "show", id, ""]), []);
      assert.deepEqual(await zsh(["warden", "completion", ""]), ["bash", "zsh"]);
    },
  );

  test("a shell warden has no completion for is a usage error naming the ones it has", async () => {
    const result = await runCli(ws.dataDir, ["completion", "fish"]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^warden: .*'fish' is invalid .*Allowed choices are bash, zsh/);
    assert.match(result.stderr, /hint: see `warden completion --help`/);
  });
});
