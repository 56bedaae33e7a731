// The tree policies as pure functions: every edge by name, without a store.
import { strict as assert } from "node:assert";
import { test } from "node:test";
import { cancelDecision, waitDecision, type Lineage } from "../../src/store/index.js";
import { closesCycle } from "../../src/store/policy.js";

// root ─┬─ a ── a1
//       └─ b
// other ── other1
const root: Lineage = { id: "root", ancestors: [] };
const a: Lineage = { id: "a", ancestors: ["root"] };
const a1: Lineage = { id: "a1", ancestors: ["root", "a"] };
const b: Lineage = { id: "b", ancestors: ["root"] };
const other: Lineage = { id: "other", ancestors: [] };
const other1: Lineage = { id: "other1", ancestors: ["other"] };

test("cancel edges: outside, self and descendants are allowed; ancestors, peers and other trees are not", () => {
  const edge = (by: Lineage | undefined, target: Lineage) => {
    const d = cancelDecision(by, target);
    return `${d.allowed ? "allowed" : "refused"}:${d.edge}`;
  };
  assert.equal(edge(undefined, a1), "allowed:outside");
  assert.equal(edge(a, a), "allowed:self");
  assert.equal(edge(a, a1), "allowed:descendant");
  assert.equal(edge(root, a1), "allowed:descendant");
  assert.equal(edge(a1, a), "refused:ancestor");
  assert.equal(edge(a1, root), "refused:ancestor");
  assert.equal(edge(a, b), "refused:peer");
  assert.equal(edge(a1, b), "refused:peer");
  assert.equal(edge(a, other), "refused:other_tree");
  assert.equal(edge(other1, root), "refused:other_tree");
});

test("wait edges: outside, descendants and independent roots are allowed; self, ancestors, peers and non-roots are not", () => {
  const edge = (by: Lineage | undefined, target: Lineage) => {
    const d = waitDecision(by, target);
    return `${d.allowed ? "allowed" : "refused"}:${d.edge}`;
  };
  assert.equal(edge(undefined, a1), "allowed:outside");
  assert.equal(edge(a, a1), "allowed:descendant");
  assert.equal(edge(root, a1), "allowed:descendant");
  assert.equal(edge(a1, other), "allowed:independent_root");
  assert.equal(edge(other1, root), "allowed:independent_root");
  assert.equal(edge(a, a), "refused:self");
  assert.equal(edge(a1, a), "refused:ancestor");
  assert.equal(edge(a1, root), "refused:ancestor");
  assert.equal(edge(a, b), "refused:peer");
  assert.equal(edge(b, a1), "refused:peer");
  assert.equal(edge(a, other1), "refused:not_a_root");
});

test("a wait between trees closes a cycle when the target tree already reaches the waiting one", () => {
  assert.equal(closesCycle([], "x", "y"), false);
  assert.equal(closesCycle([["y", "x"]], "x", "y"), true);
  assert.equal(
    closesCycle(
      [
        ["y", "z"],
        ["z", "x"],
      ],
      "x",
      "y",
    ),
    true,
  );
  assert.equal(
    closesCycle(
      [
        ["y", "z"],
        ["x", "z"],
      ],
      "x",
      "y",
    ),
    false,
  );
  assert.equal(closesCycle([], "x", "x"), true);
});
