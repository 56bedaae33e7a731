import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { BadAllowEntryError, UnknownPresetError, parseAllowList } from "../../src/egress/index.js";
import { PRESETS, PRESET_NAMES } from "../../src/egress/presets.js";
import { parseAllowEntry, type AllowList } from "../../src/egress/allowList.js";
import {
  parseTarget,
  planAddresses,
  planTarget,
  type AddressPlan,
  type Target,
  type TargetPlan,
} from "../../src/egress/checkTarget.js";

function target(authority: string): Target {
  const parsed = parseTarget(authority);
  assert.ok(parsed, `${authority} should parse`);
  return parsed;
}

function plan(list: AllowList, authority: string): TargetPlan {
  return planTarget(list, target(authority));
}

/** The plan for a name once the host resolved it to `addresses`. */
function planResolved(list: AllowList, authority: string, addresses: string[]): AddressPlan {
  const first = plan(list, authority);
  assert.equal(first.kind, "resolve");
  return planAddresses(list, target(authority), first.rule, addresses);
}

describe("reading allow-list entries", () => {
  test("a bare name means port 443, and names are lowercased without a trailing dot", () => {
    assert.deepEqual(parseAllowEntry("Registry.NPMJS.org."), {
      kind: "name",
      name: "registry.npmjs.org",
      port: 443,
      source: "Registry.NPMJS.org.",
    });
  });

  test("host:port, *.domain, IPv4, IPv6 and CIDR entries are read", () => {
    assert.equal(parseAllowEntry("example.com:8443").port, 8443);
    const wild = parseAllowEntry("*.example.com:444");
    assert.equal(wild.kind, "subdomains");
    assert.equal(wild.port, 444);
    for (const entry of [
      "127.0.0.1:8443",
      "[::1]:8443",
      "::1",
      "10.0.0.0/8:5432",
      "[fd00::/8]:443",
      "fd00::/8",
    ]) {
      assert.equal(parseAllowEntry(entry).kind, "addresses", entry);
    }
    assert.equal(parseAllowEntry("::1").port, 443);
  });

  const BAD = [
    "",
    "exa mple.com",
    "example.com:0",
    "example.com:65536",
    "example.com:08",
    "example.com:",
    "example.com:https",
    "-bad.example.com",
    "exämple.com",
    "*.com",
    "*",
    "*.",
    "a.*.example.com",
    "127.1",
    "2130706433",
    "10.0.0.1/8",
    "10.0.0.0/33",
    "0.0.0.0",
    "[::]:443",
    "224.0.0.1",
    "255.255.255.255",
    "[::1",
    "[::1]x",
    "fe80::1%eth0",
    "http://example.com",
    "example.com/path",
    "a".repeat(64) + ".com",
  ];
  for (const entry of BAD) {
    test(`the entry ${JSON.stringify(entry.length > 40 ? entry.slice(0, 40) + "…" : entry)} is refused with a hint`, () => {
      assert.throws(
        () => parseAllowEntry(entry),
        (error: unknown) =>
          error instanceof BadAllowEntryError &&
          error.code === "BAD_ALLOW_ENTRY" &&
          error.hint !== undefined,
      );
    });
  }

  test("every preset entry reads as an allow-list entry", () => {
    for (const name of PRESET_NAMES) {
      assert.ok(PRESETS[name].length > 0);
      const list = parseAllowList([], [name]);
      assert.equal(list.rules.length, PRESETS[name].length);
      for (const rule of list.rules) assert.equal(rule.source, `preset ${name}`);
    }
  });

  test("an unknown preset is refused, and the hint lists the presets", () => {
    assert.throws(
      () => parseAllowList([], ["npmm"]),
      (error: unknown) =>
        error instanceof UnknownPresetError &&
        error.code === "UNKNOWN_PRESET" &&
        (error.hint ?? "").includes("npm"),
    );
  });
});

describe("reading CONNECT targets", () => {
  test("names, IPv4 and bracketed IPv6 with a port are targets", () => {
    assert.deepEqual(parseTarget("Example.COM:443"), { host: "example.com", port: 443 });
    assert.equal(parseTarget("127.0.0.1:80")?.address?.family, 4);
    assert.equal(parseTarget("[::1]:80")?.address?.family, 6);
  });

  test("a target without a port, with a legacy IPv4 form, or with junk is not a target", () => {
    for (const text of [
      "example.com",
      "example.com:0",
      "::1:80",
      "[127.0.0.1]:80",
      "127.1:80",
      "0x7f000001:80",
      "ex ample.com:80",
      "[::1]",
      "exa%mple.com:443",
      "user@example.com:443",
    ]) {
      assert.equal(parseTarget(text), undefined, text);
    }
  });
});

describe("planning a tunnel", () => {
  const list = parseAllowList(
    ["example.com", "*.corp.example:8443", "127.0.0.1:9000", "10.0.0.0/8:5432", "localhost:9001"],
    ["npm"],
  );

  test("a name not on the list is refused before any lookup", () => {
    assert.deepEqual(plan(list, "evil.example.org:443"), {
      kind: "refuse",
      reason: "not on the allow list",
    });
  });

  test("an allowed name on another port is refused", () => {
    assert.equal(plan(list, "example.com:80").kind, "refuse");
  });

  test("*.domain allows subdomains but not the domain itself", () => {
    assert.equal(plan(list, "a.corp.example:8443").kind, "resolve");
    assert.equal(plan(list, "a.b.corp.example:8443").kind, "resolve");
    assert.equal(plan(list, "corp.example:8443").kind, "refuse");
    assert.equal(plan(list, "xcorp.example:8443").kind, "refuse");
  });

  test("a preset's names are allowed", () => {
    const first = plan(list, "registry.npmjs.org:443");
    assert.equal(first.kind, "resolve");
    assert.equal(first.rule.source, "preset npm");
  });

  test("an allowed name resolving only to public addresses is dialed at exactly those", () => {
    const resolved = planResolved(list, "example.com:443", [
      "93.184.215.14",
      "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
      "93.184.215.14",
    ]);
    assert.deepEqual(resolved.kind === "dial" && resolved.addresses, [
      "93.184.215.14",
      "2606:2800:21f:cb07:6820:80da:af6b:8b2c",
    ]);
  });

  test("an allowed name resolving to a loopback or private address is refused (DNS rebinding)", () => {
    for (const address of [
      "127.0.0.1",
      "::1",
      "10.1.2.3",
      "169.254.169.254",
      "::ffff:192.168.0.1",
      "fd00::5",
    ]) {
      const resolved = planResolved(list, "example.com:443", ["93.184.215.14", address]);
      assert.equal(resolved.kind, "refuse", address);
      assert.match(resolved.reason, new RegExp(`resolves to ${address.replace(/\./g, "\\.")}`));
    }
  });

  test("a name is not dialed at a private address just because the name is allowed", () => {
    // localhost:9001 is on the list by name, so the name is allowed, but no address entry
    // covers 127.0.0.1:9001: the rebinding defence refuses it.
    assert.equal(planResolved(list, "localhost:9001", ["127.0.0.1"]).kind, "refuse");
  });

  test("a name whose private address is itself on the list is dialed", () => {
    const withAddress = parseAllowList(["db.corp.example:5432", "10.0.0.0/8:5432"]);
    assert.equal(planResolved(withAddress, "db.corp.example:5432", ["10.9.8.7"]).kind, "dial");
    assert.equal(
      planResolved(withAddress, "db.corp.example:5432", ["11.9.8.7", "172.16.0.1"]).kind,
      "refuse",
    );
  });

  test("a name with no address is refused", () => {
    assert.equal(planResolved(list, "example.com:443", []).kind, "refuse");
  });

  test("an address written out in the list is dialed even though it is loopback", () => {
    assert.deepEqual(plan(list, "127.0.0.1:9000"), {
      kind: "dial",
      addresses: ["127.0.0.1"],
      rule: list.rules[2],
    });
    assert.equal(plan(list, "10.200.0.1:5432").kind, "dial");
  });

  test("an address not on the list is refused, even a public one and even on an allowed port", () => {
    assert.equal(plan(list, "127.0.0.1:9001").kind, "refuse");
    assert.equal(plan(list, "93.184.215.14:443").kind, "refuse");
    assert.equal(plan(list, "[::ffff:127.0.0.1]:9000").kind, "refuse");
    assert.equal(plan(list, "[::1]:9000").kind, "refuse");
  });
});
