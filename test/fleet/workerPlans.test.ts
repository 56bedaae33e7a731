// The worker's pure steps: labels against a task's requirement, the check of a base bundle's
// header, the local copy's spec, and the fleet's end of a local terminal record.
import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { missingLabels, parseLabels } from "../../src/fleet/worker/labels.js";
import { baseBundleProblem } from "../../src/fleet/worker/baseMirror.js";
import { localSpecOf } from "../../src/fleet/worker/localCopy.js";
import { fleetEndOf } from "../../src/fleet/worker/workerTask.js";
import type { BundleHeader } from "../../src/protocol/index.js";
import type { TaskSpec, TerminalRecord } from "../../src/store/index.js";

const BASE = "a".repeat(40);

function header(refs: [string, string][], more: Partial<BundleHeader> = {}): BundleHeader {
  return {
    version: 2,
    objectFormat: "sha1",
    prerequisites: [],
    refs: new Map(refs),
    packOffset: 0,
    ...more,
  };
}

describe("a worker's labels", () => {
  test("are NAME=VALUE words, each name once", () => {
    assert.deepEqual(parseLabels(["gpu=1", "zone=eu=west"]), { gpu: "1", zone: "eu=west" });
    assert.throws(() => parseLabels(["gpu"]), { code: "BAD_LABEL" });
    assert.throws(() => parseLabels(["g pu=1"]), { code: "BAD_LABEL" });
    assert.throws(() => parseLabels(["gpu=1", "gpu=2"]), { code: "BAD_LABEL" });
  });

  test("meet a task's requirement only when every required label has the same value", () => {
    const labels = { gpu: "1", zone: "a" };
    assert.deepEqual(missingLabels({}, labels), []);
    assert.deepEqual(missingLabels({ require: { gpu: "1" } }, labels), []);
    assert.deepEqual(missingLabels({ require: { gpu: "2" } }, labels), ["gpu=2"]);
    assert.deepEqual(missingLabels({ require: { disk: "ssd" } }, labels), ["disk=ssd"]);
    assert.equal(
      missingLabels({ require: ["gpu"] }, labels).length,
      1,
      "a list requires what none has",
    );
    assert.equal(missingLabels({ require: { gpu: 1 } }, labels).length, 1, "a number is no value");
  });
});

describe("a base bundle's header", () => {
  test("is taken when it carries HEAD alone, at the base, with no prerequisite", () => {
    assert.equal(baseBundleProblem(header([["HEAD", BASE]]), BASE, "sha1"), undefined);
  });

  test("is refused for another head, another ref, a prerequisite or another object format", () => {
    assert.match(
      baseBundleProblem(header([["HEAD", "b".repeat(40)]]), BASE, "sha1") ?? "",
      /is not the task's base/,
    );
    assert.match(
      baseBundleProblem(header([["refs/heads/main", BASE]]), BASE, "sha1") ?? "",
      /not HEAD alone/,
    );
    assert.match(
      baseBundleProblem(
        header([
          ["HEAD", BASE],
          ["refs/tags/x", BASE],
        ]),
        BASE,
        "sha1",
      ) ?? "",
      /not HEAD alone/,
    );
    assert.match(
      baseBundleProblem(header([["HEAD", BASE]], { prerequisites: [BASE] }), BASE, "sha1") ?? "",
      /needs commits/,
    );
    assert.match(baseBundleProblem(header([["HEAD", BASE]]), BASE, "sha256") ?? "", /is sha1/);
  });
});

describe("a fleet task's local copy", () => {
  test("points the repository and git directory at the mirror and keeps the rest", () => {
    const spec: TaskSpec = {
      version: 1,
      id: "01jz0000000000000000000000",
      createdAt: 1,
      repo: "/client/repo",
      base: BASE,
      settings: { version: 1, gitDir: "/client/repo/.git", require: { gpu: "1" } },
      deadline: 123_456,
      parent: "01jz0000000000000000000001",
      ancestors: ["01jz0000000000000000000001"],
      hop: 2,
      labels: { team: "a" },
      title: "t",
      promptBytes: 4,
      prompt: "work",
    };
    assert.deepEqual(localSpecOf(spec, "/worker/mirror.git"), {
      prompt: "work",
      repo: "/worker/mirror.git",
      base: BASE,
      settings: { version: 1, gitDir: "/worker/mirror.git", require: { gpu: "1" } },
      deadline: 123_456,
      parent: null,
      hop: 2,
      labels: { team: "a" },
    });
  });

  test("ends in the fleet with the local end's facts", () => {
    const record = {
      version: 1,
      state: "failed",
      stoppedBy: "deadline",
      error: "late",
      details: { attempt: 1 },
      at: 5,
      lastSeq: 9,
      attempts: 1,
    } as unknown as TerminalRecord;
    assert.deepEqual(fleetEndOf(record), {
      state: "failed",
      stoppedBy: "deadline",
      error: "late",
      details: { attempt: 1 },
    });
  });
});
