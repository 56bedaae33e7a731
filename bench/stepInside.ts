// What stepping inside a running task costs, with real bubblewrap. `warden exec ID -- true`
// against `warden show ID` (the same CLI start and reading of the task, no session), and
// against a plain spawn of `true`; and `warden cp ID:blob` of 64 MiB out of the workspace
// against `cat` of the same bytes on the host. Medians of 7 runs (3 with --quick).
//
//   npm run build && node --import tsx bench/stepInside.ts [--quick]
import "./support/withoutExtraCaCerts.js";
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createWriteStream } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { AWAIT_RELEASE, idOf, runCli, taskWorkspace, workspace } from "../test/e2e/fixtures.js";
import { median } from "./support/median.js";

const quick = process.argv.includes("--quick");
const RUNS = quick ? 3 : 7;
const BLOB_BYTES = 64 * 1024 * 1024;

async function timed(run: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await run();
  return performance.now() - start;
}

function spawned(program: string, args: string[], out?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      stdio: ["ignore", out === undefined ? "ignore" : "pipe", "inherit"],
    });
    if (out !== undefined) child.stdout?.pipe(createWriteStream(out));
    child.once("error", reject);
    child.once("close", (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${program} exited ${code}`));
    });
  });
}

const ws = await workspace();
try {
  const run = await runCli(ws.dataDir, [
    "run",
    "--detach",
    "--repo",
    ws.repo,
    "--prompt",
    "bench",
    "--deadline",
    "30m",
    "--allow-exec",
    "--",
    "sh",
    "-c",
    AWAIT_RELEASE,
  ]);
  if (run.code !== 0) throw new Error(run.stderr);
  const id = idOf(run);
  for (let i = 0; i < 600; i++) {
    if ((await runCli(ws.dataDir, ["exec", id, "--", "true"])).code === 0) break;
    await sleep(200);
  }
  const blob = join(taskWorkspace(ws.dataDir, id), "blob.bin");
  await writeFile(blob, randomBytes(BLOB_BYTES));
  const exec: number[] = [];
  const show: number[] = [];
  const plain: number[] = [];
  const cp: number[] = [];
  const cat: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    exec.push(
      await timed(async () => {
        const r = await runCli(ws.dataDir, ["exec", id, "--", "true"]);
        if (r.code !== 0) throw new Error(r.stderr);
      }),
    );
    show.push(await timed(() => runCli(ws.dataDir, ["show", id])));
    plain.push(await timed(() => spawned("true", [])));
    const out = join(ws.root, "out.bin");
    cp.push(
      await timed(async () => {
        const r = await runCli(ws.dataDir, ["cp", `${id}:blob.bin`, out]);
        if (r.code !== 0) throw new Error(r.stderr);
      }),
    );
    await rm(out, { force: true });
    cat.push(await timed(() => spawned("cat", [blob], out)));
    await rm(out, { force: true });
  }
  const ms = (v: number) => `${v.toFixed(0)} ms`;
  const e = median(exec);
  const s = median(show);
  const p = median(plain);
  const c = median(cp);
  const k = median(cat);
  console.log(`runs: ${RUNS} (medians)`);
  console.log(
    `exec -- true      ${ms(e)}   vs show ${ms(s)}: ${(e / s).toFixed(2)}x   vs spawn of true ${ms(p)}: ${(e / p).toFixed(0)}x`,
  );
  console.log(
    `cp out of 64 MiB  ${ms(c)}   vs cat ${ms(k)}: ${(c / k).toFixed(1)}x   (${(BLOB_BYTES / 1024 / 1024 / (c / 1000)).toFixed(0)} MiB/s)`,
  );
  await writeFile(join(taskWorkspace(ws.dataDir, id), "release"), "");
  await runCli(ws.dataDir, ["wait", id, "--timeout", "60s"]);
} finally {
  await ws.cleanup();
}
