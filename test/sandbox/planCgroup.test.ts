// Finding cgroup sites and planning a sandbox's cgroups, tested pure on texts from real hosts.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import {
  parseCgroupMounts,
  parseProcCgroup,
  type CgroupHost,
} from "../../src/sandbox/cgroupHost.js";
import { BWRAP_MONITOR_PROCESSES, planCgroup } from "../../src/sandbox/planCgroup.js";

const MiB = 1024 * 1024;

/** A hybrid host: memory and pids on cgroup v1, an empty v2 beside them (this machine's kind). */
const HYBRID_MOUNTINFO = [
  "30 25 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755",
  "35 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory",
  "36 30 0:32 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids",
  "37 30 0:33 / /sys/fs/cgroup/cpu,cpuacct rw,relatime - cgroup cgroup rw,cpu,cpuacct",
  "38 30 0:34 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw",
].join("\n");

const HYBRID_CGROUP = "8:pids:/\n4:memory:/process_api/abc\n2:cpu,cpuacct:/\n0::/\n";

/** A container whose cgroup mount shows its own subtree, with a path inside it. */
const V2_MOUNTINFO =
  "600 500 0:40 /docker/abc /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw,nsdelegate";

describe("cgroup sites", () => {
  test("mountinfo gives the v1 controllers and the v2 mount", () => {
    const mounts = parseCgroupMounts(HYBRID_MOUNTINFO);
    assert.deepEqual(
      mounts.map((m) => [m.version, m.mountPoint, m.controllers]),
      [
        [1, "/sys/fs/cgroup/memory", ["memory"]],
        [1, "/sys/fs/cgroup/pids", ["pids"]],
        [1, "/sys/fs/cgroup/cpu,cpuacct", []],
        [2, "/sys/fs/cgroup/unified", []],
      ],
    );
    assert.deepEqual(parseCgroupMounts(V2_MOUNTINFO)[0]?.root, "/docker/abc");
  });

  test("/proc/self/cgroup gives this process's cgroup per controller and for v2", () => {
    const own = parseProcCgroup(HYBRID_CGROUP);
    assert.equal(own.get("memory"), "/process_api/abc");
    assert.equal(own.get("pids"), "/");
    assert.equal(own.get("cpuacct"), "/");
    assert.equal(own.get(""), "/");
  });
});

describe("the cgroup plan", () => {
  const v1: CgroupHost = {
    memory: { ok: true, version: 1, parent: "/sys/fs/cgroup/memory/process_api/abc" },
    pids: { ok: true, version: 1, parent: "/sys/fs/cgroup/pids" },
  };
  const v2: CgroupHost = {
    memory: { ok: true, version: 2, parent: "/sys/fs/cgroup/warden.slice" },
    pids: { ok: true, version: 2, parent: "/sys/fs/cgroup/warden.slice" },
  };
  const none: CgroupHost = {
    memory: { ok: false, why: "no cgroup file system offers the memory controller" },
    pids: { ok: false, why: "no cgroup file system offers the pids controller" },
  };

  test("on cgroup v1 each controller has a directory of the task's own", () => {
    const plan = planCgroup("t1", { memoryBytes: 256 * MiB, processes: 100 }, v1);
    assert.deepEqual(plan.unavailable, []);
    assert.deepEqual(plan.dirs, [
      {
        version: 1,
        path: "/sys/fs/cgroup/memory/process_api/abc/warden-t1",
        settings: [
          { file: "memory.limit_in_bytes", value: String(256 * MiB), optional: false },
          { file: "memory.memsw.limit_in_bytes", value: String(256 * MiB), optional: true },
        ],
      },
      {
        version: 1,
        path: "/sys/fs/cgroup/pids/warden-t1",
        settings: [{ file: "pids.max", value: "101", optional: false }],
      },
    ]);
  });

  test("on cgroup v2 one directory holds both limits, and swap is not a way around memory", () => {
    const plan = planCgroup("t1", { memoryBytes: 64 * MiB, processes: 50 }, v2);
    assert.equal(plan.dirs.length, 1);
    assert.deepEqual(
      plan.dirs[0]?.settings.map((s) => [s.file, s.value]),
      [
        ["memory.max", String(64 * MiB)],
        ["memory.swap.max", "0"],
        ["pids.max", "51"],
      ],
    );
  });

  test("the process bound leaves room for bwrap's own process, which is in the cgroup too", () => {
    const plan = planCgroup("t1", { processes: 7 }, v2);
    assert.deepEqual(plan.dirs[0]?.settings, [
      { file: "pids.max", value: String(7 + BWRAP_MONITOR_PROCESSES), optional: false },
    ]);
    assert.equal(BWRAP_MONITOR_PROCESSES, 1);
  });

  test("a bound the host cannot apply is named with the reason, so the sandbox is not started", () => {
    const plan = planCgroup("t1", { memoryBytes: 64 * MiB, processes: 50 }, none);
    assert.deepEqual(plan.dirs, []);
    assert.deepEqual(plan.unavailable, [
      "the memory bound of 64 MiB: no cgroup file system offers the memory controller",
      "the bound of 50 processes: no cgroup file system offers the pids controller",
    ]);
  });

  test("no limit asked, no cgroup made", () => {
    assert.deepEqual(planCgroup("t1", {}, v1), { dirs: [], unavailable: [] });
    assert.deepEqual(planCgroup("t1", { memoryBytes: 0, processes: 0 }, none), {
      dirs: [],
      unavailable: [],
    });
  });
});
