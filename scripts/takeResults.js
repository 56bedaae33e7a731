// The host's side of a run, small enough to read in one go: reads a results archive from stdin,
// checks the bundle of changes against the base the caller computed itself, fetches it into
// the repository as a branch, and prints the result and the fetched commit. Plain JavaScript
// on the built package, so it runs with node alone once `npm run build` has run.
//
//   warden-guest ... | node scripts/takeResults.js RESULTS_DIR REPO BASE BRANCH
import { spawnSync } from "node:child_process";
import process from "node:process";
import {
  checkBundle,
  cleanLine,
  indent,
  readBundleHeaderFile,
  receiveResults,
} from "../dist/protocol/index.js";

const [dir, repo, base, branch] = process.argv.slice(2);
if (branch === undefined) {
  process.stderr.write("usage: takeResults.js RESULTS_DIR REPO BASE BRANCH < archive\n");
  process.exit(2);
}

function git(...args) {
  const run = spawnSync("git", ["-C", repo, ...args], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`git ${args.join(" ")}: ${run.stderr}`);
  return run.stdout;
}

const { result, files } = await receiveResults(process.stdin, { dir });
// Everything in the result is the sandbox's claim: shown as JSON, whose escapes keep any
// control character from reaching the terminal, and indented through cleanText.
process.stdout.write(`result.json:\n${indent(JSON.stringify(result, null, 2), "  ")}\n`);

const bundle = files["changes.bundle"];
if (bundle === undefined) {
  process.stdout.write("no changes were sent\n");
} else {
  const head = checkBundle(await readBundleHeaderFile(bundle.path), base);
  const ref = `refs/heads/warden/task:refs/heads/${branch}`;
  git("-c", "transfer.fsckObjects=true", "fetch", "--quiet", bundle.path, ref);
  const log = git("log", "--stat", "--format=%h %s%n%an <%ae>", `${base}..${branch}`);
  process.stdout.write(`fetched ${head} as ${branch}:\n${indent(log, "  ")}\n`);
}
if (result.error !== undefined) {
  process.stdout.write(`the task failed: ${cleanLine(result.error)}\n`);
  process.exitCode = 1;
}
