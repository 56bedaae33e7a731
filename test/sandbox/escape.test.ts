// Escape attempts from inside bwrap: each must fail, and each test says which one it tried.
import { strict as assert } from "node:assert";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type AddressInfo } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { describe, test } from "node:test";
import { findPackageRoot } from "../../src/sandbox/packageRoot.js";
import {
  FIXTURES,
  finish,
  goneWithin,
  HUNG_TEST_MS,
  killedAtEnd,
  NEEDS_BWRAP,
  probe,
  request,
  waitFor,
  type Finished,
  useBwrapSandbox,
} from "./sandboxFixture.js";

const PACKAGE_ROOT = findPackageRoot() ?? "/nonexistent";

describe("escapes from a bwrap sandbox", { skip: NEEDS_BWRAP }, () => {
  const suite = useBwrapSandbox();

  /** Runs a Node program inside, to its end. */
  async function insideNode(code: string): Promise<Finished> {
    const runner = { program: process.execPath, args: ["-e", code, "--"] };
    return finish(await suite.backend.start(request(suite.dirs, runner)));
  }

  test("writing to /etc fails because /etc is read-only", async () => {
    // EACCES would mean a writable /etc that only the host's file modes guard.
    const run = await insideNode(`
      try {
        require("node:fs").writeFileSync("/etc/warden-escape", "pwned");
        console.log("WROTE");
      } catch (error) {
        console.log(error.code);
      }`);
    assert.equal(run.stdout.trim(), "EROFS", run.stderr);
    assert.equal(existsSync("/etc/warden-escape"), false);
  });

  test("writing to host paths outside the workspace fails: a host directory, warden's package, the share", async () => {
    const outside = await mkdtemp(join("/var/tmp", "warden-escape-"));
    const targets = [outside, FIXTURES, join(PACKAGE_ROOT, "node_modules"), "/share", "/"];
    try {
      const run = await suite.inside(
        targets
          .map((t) => `mkdir -p ${t} 2>/dev/null; if touch ${t}/escape; then echo WROTE ${t}; fi`)
          .join("\n"),
      );
      assert.equal(run.stdout, "");
      for (const target of [
        outside,
        FIXTURES,
        join(PACKAGE_ROOT, "node_modules"),
        suite.dirs.share,
      ]) {
        assert.equal(existsSync(join(target, "escape")), false, `${target}/escape was written`);
      }
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  test("remounting read-only mounts writable fails, and so does a new user namespace to try it in", async () => {
    const run = await suite.inside(
      [
        "mount -o remount,rw / 2>/dev/null; touch /escape 2>/dev/null && echo WROTE /",
        "mount -o remount,rw /share 2>/dev/null; touch /share/escape 2>/dev/null && echo WROTE /share",
        `mount -o remount,rw ${FIXTURES} 2>/dev/null; touch ${FIXTURES}/escape 2>/dev/null && echo WROTE fixtures`,
        "mount --bind /workspace /share 2>/dev/null && echo BOUND",
        "umount /share 2>/dev/null && echo UNMOUNTED",
        "unshare -Urm true 2>/dev/null && echo USERNS",
        "echo done",
      ].join("\n"),
    );
    assert.equal(run.stdout, "done\n");
    assert.equal(existsSync(join(suite.dirs.share, "escape")), false);
    assert.equal(existsSync(join(FIXTURES, "escape")), false);
  });

  test("the user's home, and a key in ~/.ssh, cannot be read", async () => {
    const ssh = join(homedir(), ".ssh");
    const hadSsh = existsSync(ssh);
    const key = join(ssh, `id_warden_test_${randomUUID()}`);
    const secret = `SECRET-KEY-${randomUUID()}`;
    await mkdir(ssh, { recursive: true, mode: 0o700 });
    await writeFile(key, secret, { mode: 0o600 });
    try {
      const run = await suite.inside(
        [
          `cat ${key}`,
          `ls -A ${homedir()}`,
          "ls -A /root /home",
          "echo HOME=$HOME; ls -A $HOME",
        ].join("; "),
      );
      assert.doesNotMatch(run.stdout, new RegExp(secret));
      assert.match(run.stderr, /No such file or directory/);
      assert.match(run.stdout, /HOME=\/home\/agent\n$/);
    } finally {
      await rm(key, { force: true });
      if (!hadSsh) await rm(ssh, { recursive: true, force: true });
    }
  });

  test("a TCP server on the host's 127.0.0.1 cannot be reached, nor any other address", async () => {
    let connections = 0;
    const server = createServer((s) => {
      connections += 1;
      s.end("leak");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const run = await insideNode(`
        const net = require("node:net");
        const os = require("node:os");
        const attempt = (host) => new Promise((resolve) => {
          const s = net.connect(${port}, host);
          s.on("connect", () => resolve("CONNECTED"));
          s.on("error", (e) => resolve(e.code));
        });
        (async () => {
          console.log(JSON.stringify({
            loopback: await attempt("127.0.0.1"),
            other: await attempt("10.0.0.1"),
            interfaces: Object.keys(os.networkInterfaces()),
          }));
        })();`);
      const report = JSON.parse(run.stdout) as Record<string, unknown>;
      assert.equal(report.loopback, "ECONNREFUSED");
      assert.equal(report.other, "ENETUNREACH");
      assert.deepEqual(report.interfaces, ["lo"]);
      assert.equal(connections, 0);
    } finally {
      server.close();
    }
  });

  test("a name cannot be resolved, by getent or by Node", async () => {
    const run = await suite.inside("getent hosts example.com registry.npmjs.org; echo getent=$?");
    assert.equal(run.stdout, "getent=2\n");
    const node = await insideNode(`
      const dns = require("node:dns");
      dns.lookup("registry.npmjs.org", (e1) => {
        dns.resolve4("registry.npmjs.org", (e2) => {
          console.log(JSON.stringify([e1 && e1.code, e2 && e2.code]));
        });
      });`);
    const [lookup, resolve] = JSON.parse(node.stdout) as [string | null, string | null];
    assert.ok(lookup !== null, "dns.lookup resolved a name");
    assert.ok(resolve !== null, "dns.resolve4 resolved a name");
  });

  test("host processes are not visible in /proc", async () => {
    const marker = `warden-host-marker-${randomUUID()}`;
    const host = spawn(process.execPath, ["-e", "setInterval(() => {}, 60000)", "--", marker], {
      stdio: "ignore",
    });
    try {
      // The script does not name the marker: it lists every command line it can see.
      const run = await suite.inside(
        "for p in /proc/[0-9]*; do printf '%s: ' $p; tr '\\0' ' ' < $p/cmdline; echo; done",
      );
      const lines = run.stdout.trim().split("\n");
      assert.ok(lines.length > 0 && lines.length < 10, `the sandbox sees ${run.stdout}`);
      assert.doesNotMatch(run.stdout, new RegExp(marker), "the host process is visible");
      assert.match(
        run.stdout,
        /^\/proc\/1: \S*bwrap /m,
        "the sandbox's own first process is pid 1",
      );
      // The host pid of the test process means nothing inside.
      const probeSelf = await suite.inside(
        `test -e /proc/${process.pid} && echo VISIBLE || echo ABSENT`,
      );
      assert.equal(probeSelf.stdout, "ABSENT\n");
    } finally {
      host.kill("SIGKILL");
    }
  });

  test("the runner has no capabilities and is not root, even when warden runs as root", async () => {
    const run = await suite.inside(
      "grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|Uid|Gid):' /proc/self/status",
    );
    const fields = Object.fromEntries(
      run.stdout
        .trim()
        .split("\n")
        .map((l) => l.split(/:\s+/) as [string, string]),
    );
    for (const cap of ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"]) {
      assert.equal(fields[cap], "0000000000000000", `${cap} is ${String(fields[cap])}`);
    }
    assert.match(fields.Uid ?? "", /^1000\s+1000\s+1000\s+1000$/);
    assert.match(fields.Gid ?? "", /^1000\s+1000\s+1000\s+1000$/);
  });

  test("a host process cannot be killed by its pid", async () => {
    const victim = spawn(process.execPath, ["-e", "setInterval(() => {}, 60000)"], {
      stdio: "ignore",
    });
    const pid = victim.pid ?? 0;
    try {
      const run = await suite.inside(`kill -9 ${pid} ${process.pid} 2>&1; echo rc=$?`);
      assert.match(run.stdout, /No such process/);
      assert.doesNotThrow(() => process.kill(pid, 0), "the victim was killed");
    } finally {
      victim.kill("SIGKILL");
    }
  });

  test(
    "SIGKILL of the host process that started bwrap leaves no sandbox process behind",
    { timeout: HUNG_TEST_MS },
    async (t) => {
      const marker = killedAtEnd(t, "orphan");
      const host = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          join(FIXTURES, "hostStarts.ts"),
          suite.dirs.share,
          suite.dirs.workspace,
          suite.dirs.root,
          marker,
        ],
        { stdio: ["ignore", "pipe", "inherit"] },
      );
      await waitFor(host.stdout, "started");
      assert.ok((await goneWithin(marker, 0)).length >= 2, "the runner and its child run");
      host.kill("SIGKILL");
      assert.deepEqual(await goneWithin(marker, 2_000), [], "a sandbox process outlived its host");
    },
  );

  test("SIGKILL of bwrap alone ends every process inside", { timeout: HUNG_TEST_MS }, async (t) => {
    const marker = killedAtEnd(t, "bwrap-kill");
    const sandbox = await suite.backend.start(request(suite.dirs, probe("grandchild", marker)));
    await waitFor(sandbox.stdout, "ready");
    assert.ok((await goneWithin(marker, 0)).length >= 2, "the runner and its child run");
    process.kill(sandbox.pid, "SIGKILL");
    const exit = await sandbox.exit;
    assert.equal(exit.signal, "SIGKILL");
    assert.deepEqual(await goneWithin(marker, 2_000), [], "a sandbox process outlived bwrap");
  });

  test("files the runner makes in /tmp and its home stay in the sandbox", async () => {
    const name = `warden-escape-${randomUUID()}`;
    const run = await suite.inside(`echo x > /tmp/${name} && echo x > $HOME/${name} && echo WROTE`);
    assert.equal(run.stdout, "WROTE\n", "the sandbox has a /tmp and a home of its own");
    assert.equal(existsSync(join("/tmp", name)), false);
    assert.equal(existsSync(join(homedir(), name)), false);
  });
});
