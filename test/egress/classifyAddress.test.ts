import { strict as assert } from "node:assert";
import { describe, test } from "node:test";
import { classifyAddress, describeClass } from "../../src/egress/classifyAddress.js";
import { cidr, inCidr, parseCidr, parseIp } from "../../src/egress/ipAddress.js";

// Each row: an address, the class it must get, and (for IPv6 that carries IPv4) how.
const REFUSED: readonly (readonly [string, string, string?])[] = [
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "this-network"],
  ["10.0.0.1", "private"],
  ["10.255.255.255", "private"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.254", "cgnat"],
  ["127.0.0.1", "loopback"],
  ["127.255.0.9", "loopback"],
  ["169.254.169.254", "link-local"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["192.0.0.8", "reserved"],
  ["192.0.2.10", "documentation"],
  ["192.88.99.1", "reserved"],
  ["192.168.1.1", "private"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.200", "documentation"],
  ["224.0.0.251", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.254", "reserved"],
  ["255.255.255.255", "broadcast"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["::ffff:127.0.0.1", "loopback", "ipv4-mapped"],
  ["::ffff:7f00:1", "loopback", "ipv4-mapped"],
  ["::ffff:10.1.2.3", "private", "ipv4-mapped"],
  ["::ffff:169.254.169.254", "link-local", "ipv4-mapped"],
  ["::ffff:0.0.0.0", "unspecified", "ipv4-mapped"],
  ["64:ff9b::192.168.0.1", "private", "nat64"],
  ["64:ff9b::7f00:1", "loopback", "nat64"],
  ["64:ff9b:1::1", "private"],
  ["2002:7f00:1::1", "loopback", "6to4"],
  ["2002:a00:1::", "private", "6to4"],
  ["::127.0.0.1", "reserved"],
  ["100::1", "reserved"],
  ["2001::1", "reserved"],
  ["2001:2::1", "reserved"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["5f00::1", "reserved"],
  ["fc00::1", "unique-local"],
  ["fd12:3456:789a::1", "unique-local"],
  ["fe80::1", "link-local"],
  ["febf:ffff::1", "link-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["4000::1", "reserved"],
  ["e000::1", "reserved"],
];

const PUBLIC: readonly string[] = [
  "1.1.1.1",
  "8.8.8.8",
  "9.255.255.255",
  "11.0.0.1",
  "100.63.255.255",
  "100.128.0.0",
  "172.15.255.255",
  "172.32.0.0",
  "192.167.255.255",
  "192.169.0.0",
  "198.17.255.255",
  "198.20.0.0",
  "223.255.255.255",
  "2606:4700:4700::1111",
  "2001:4860:4860::8888",
  "2a00:1450:4001::200e",
  "2001:200::1",
  "::ffff:8.8.8.8",
  "64:ff9b::808:808",
  "2002:808:808::1",
];

describe("address classification", () => {
  for (const [address, expected, via] of REFUSED) {
    test(`${address} is ${expected}${via === undefined ? "" : ` (${via})`}, not public`, () => {
      const got = classifyAddress(address);
      assert.equal(got.class, expected);
      assert.equal(got.via, via);
    });
  }

  for (const address of PUBLIC) {
    test(`${address} is public`, () => {
      assert.equal(classifyAddress(address).class, "public");
    });
  }

  test("text that is not a standard address is never taken for public", () => {
    for (const text of [
      "127.1",
      "0x7f.0.0.1",
      "2130706433",
      "017.0.0.1",
      "fe80::1%eth0",
      "",
      "example.com",
      "1.2.3.4.5",
      "::ffff:1.2.3",
    ]) {
      assert.equal(classifyAddress(text).class, "reserved", text);
    }
  });

  test("the description names the embedding of a mapped address", () => {
    assert.equal(describeClass(classifyAddress("::ffff:127.0.0.1")), "loopback (ipv4-mapped)");
    assert.equal(describeClass(classifyAddress("10.0.0.1")), "private");
  });
});

describe("addresses and blocks", () => {
  test("an IPv6 address with an embedded IPv4 tail reads to the same bytes as its hex form", () => {
    assert.deepEqual(parseIp("::ffff:127.0.0.1")?.bytes, parseIp("::ffff:7f00:1")?.bytes);
    assert.deepEqual(
      parseIp("1:2:3:4:5:6:7:8")?.bytes,
      Uint8Array.from([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]),
    );
    assert.deepEqual(
      parseIp("1::")?.bytes,
      Uint8Array.from([0, 1, ...new Array<number>(14).fill(0)]),
    );
  });

  test("a block contains the addresses under its prefix and nothing of the other family", () => {
    const block = parseCidr("172.16.0.0/12");
    assert.ok(block);
    const inside = (text: string): boolean => {
      const address = parseIp(text);
      assert.ok(address);
      return inCidr(address, block);
    };
    assert.equal(inside("172.16.0.0"), true);
    assert.equal(inside("172.31.255.255"), true);
    assert.equal(inside("172.32.0.0"), false);
    assert.equal(inside("172.15.255.255"), false);
    assert.equal(inside("::ffff:172.16.0.1"), false);
  });

  test("a block with bits set after its prefix, or a prefix too long, is not a block", () => {
    assert.equal(parseCidr("10.0.0.1/8"), undefined);
    assert.equal(parseCidr("10.0.0.0/33"), undefined);
    assert.equal(parseCidr("fd00::/129"), undefined);
    assert.equal(parseCidr("fd00::1/8"), undefined);
    assert.equal(parseCidr("10.0.0.0/08"), undefined);
    assert.ok(parseCidr("fd00::/8"));
    assert.ok(parseCidr("0.0.0.0/0"));
    assert.ok(parseCidr("10.1.2.3/32"));
  });

  test("a table's block reads as parseCidr reads the same text, and a typo in one throws", () => {
    const blocks = [
      "0.0.0.0/8",
      "100.64.0.0/10",
      "255.255.255.255/32",
      "::/128",
      "::1/128",
      "::ffff:0:0/96",
      "64:ff9b:1::/48",
      "2001:db8::/32",
      "fe80::/10",
      "2000::/3",
    ];
    for (const text of blocks) assert.deepEqual(cidr(text), parseCidr(text), text);
    for (const typo of [
      "10.0.0.1/8",
      "10.0.0/8",
      "fd00::1/8",
      "fd00::/129",
      "1O.0.0.0/8",
      "10.0.0.0",
    ]) {
      assert.throws(() => cidr(typo), /not a CIDR block/, typo);
    }
  });
});
