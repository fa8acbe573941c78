import { BlockList } from "node:net";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalAddress, classifyAddress } from "../../../hub/routing/addressClass.js";
import { RouteTargets } from "../../../hub/routing/RouteTargets.js";

/**
 * The address classifier behind `--route-targets public-only`, as pure functions: no address here
 * is ever connected to. A fast-check property compares it over random IPv4 and IPv6 addresses
 * (and IPv4 embedded in IPv6) with a reference decision made by Node's own `net.BlockList`.
 */

/** The reference: every range public-only refuses, as BlockList subnets. */
const V4_FORBIDDEN: [string, number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 3], // multicast 224/4 and reserved 240/4
];
const V6_FORBIDDEN: [string, number][] = [
  ["::", 8],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
];
const v4List = new BlockList();
for (const [net, prefix] of V4_FORBIDDEN) v4List.addSubnet(net, prefix, "ipv4");
const v6List = new BlockList();
for (const [net, prefix] of V6_FORBIDDEN) v6List.addSubnet(net, prefix, "ipv6");

const v4Forbidden = (a: string): boolean => v4List.check(a, "ipv4");

const publicOnly = (address: string): boolean => classifyAddress(address) === "public";

const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const v4Text = ([a, b, c, d]: [number, number, number, number]): string => `${a}.${b}.${c}.${d}`;
/** IPv4 addresses, half of them near the edges of the ranges above. */
const v4 = fc.oneof(
  octets.map(v4Text),
  fc
    .tuple(fc.constantFrom(...V4_FORBIDDEN.map(([net]) => net)), fc.integer({ min: -2, max: 2 }), fc.nat(255))
    .map(([net, delta, low]) => {
      const parts = net.split(".").map(Number);
      parts[0] = Math.min(255, Math.max(0, parts[0]! + delta));
      parts[3] = low;
      return parts.join(".");
    }),
);
const group = fc.nat(0xffff).map((n) => n.toString(16));
const v6Groups = fc.tuple(
  fc.oneof(group, fc.constantFrom("fc00", "fd00", "fe80", "fec0", "ff02", "2001", "100", "0", "64")),
  group,
  group,
  group,
  group,
  group,
  group,
  group,
);
/** Splits the 32 bits of an IPv4 address into two IPv6 groups. */
const v4Groups = (a: string): [string, string] => {
  const [p, q, r, s] = a.split(".").map(Number) as [number, number, number, number];
  return [((p << 8) | q).toString(16), ((r << 8) | s).toString(16)];
};

describe("the route address classifier (pure; nothing is connected to)", () => {
  it("refuses the well-known local, private and metadata addresses, and lets public ones through", () => {
    for (const address of [
      "127.0.0.1",
      "127.255.255.254",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "169.254.170.2",
      "100.64.0.1",
      "100.100.100.200",
      "0.0.0.0",
      "::",
      "::1",
      "[::1]",
      "fc00::1",
      "fd00:ec2::254",
      "fe80::1",
      "fe80::1%eth0",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:169.254.169.254",
      "::ffff:10.0.0.1",
      "64:ff9b::a00:1",
      "2002:c0a8:101::1",
      "224.0.0.1",
      "255.255.255.255",
      "ff02::1",
    ]) {
      expect(publicOnly(address), address).toBe(false);
    }
    expect(classifyAddress("169.254.169.254")).toBe("metadata");
    expect(classifyAddress("fd00:ec2::254")).toBe("metadata");
    expect(classifyAddress("::ffff:169.254.169.254")).toBe("metadata");
    expect(classifyAddress("::ffff:127.0.0.1")).toBe("loopback");
    expect(classifyAddress("100.64.0.1")).toBe("cgnat");
    expect(classifyAddress("fe80::1")).toBe("link-local");
    expect(classifyAddress("fd12:3456::1")).toBe("private");
    expect(classifyAddress("::")).toBe("unspecified");
    for (const address of [
      "8.8.8.8",
      "1.1.1.1",
      "172.32.0.1",
      "100.128.0.1",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
    ]) {
      expect(publicOnly(address), address).toBe(true);
    }
    expect(classifyAddress("example.com")).toBeUndefined();
    expect(canonicalAddress("::ffff:127.0.0.1")).toBe("127.0.0.1");
    expect(canonicalAddress("::1")).toBe("0:0:0:0:0:0:0:1");
  });

  it("agrees with a BlockList reference on random IPv4 addresses", () => {
    fc.assert(
      fc.property(v4, (address) => {
        expect(publicOnly(address)).toBe(!v4Forbidden(address));
      }),
      { seed: 20261127, numRuns: 5000 },
    );
  });

  it("agrees with the reference on random IPv6 addresses, IPv4-mapped, NAT64 and 6to4 ones by their IPv4", () => {
    const cases = fc.oneof(
      v6Groups.map((g) => {
        const address = g.join(":");
        const n = BigInt(`0x${g.map((x) => x.padStart(4, "0")).join("")}`);
        // The forms that carry an IPv4 address are judged by it (below); skip them here.
        const embeds =
          n >> 32n === 0xffffn || n >> 32n === 0x64ff9b0000000000000000n || n >> 112n === 0x2002n;
        return {
          address,
          forbidden: embeds ? undefined : n === 0n || n === 1n || v6List.check(address, "ipv6"),
        };
      }),
      v4.map((a) => ({ address: `::ffff:${a}`, forbidden: v4Forbidden(a) })),
      v4.map((a) => ({ address: `::ffff:${v4Groups(a).join(":")}`, forbidden: v4Forbidden(a) })),
      v4.map((a) => ({ address: `64:ff9b::${a}`, forbidden: v4Forbidden(a) })),
      v4.map((a) => ({ address: `2002:${v4Groups(a).join(":")}::1`, forbidden: v4Forbidden(a) })),
    );
    fc.assert(
      fc.property(cases, ({ address, forbidden }) => {
        if (forbidden === undefined) return;
        expect(publicOnly(address)).toBe(!forbidden);
      }),
      { seed: 20261127, numRuns: 5000 },
    );
  });

  it("refuses a name when any of its addresses is refused (checked without connecting)", async () => {
    const targets = new RouteTargets({
      policy: "public-only",
      lookup: async () => [
        { address: "203.0.114.10", family: 4 },
        { address: "10.0.0.7", family: 4 },
      ],
    });
    expect(await targets.check("mixed.test", 443)).toEqual({
      ok: false,
      reason:
        "10.0.0.7 (mixed.test resolves to 10.0.0.7) is a private network address: the hub's route target policy is public-only (cardsim hub --route-targets)",
    });
    const clean = new RouteTargets({
      policy: "public-only",
      lookup: async () => [{ address: "203.0.114.10", family: 4 }],
    });
    expect(await clean.check("public.test", 443)).toEqual({
      ok: true,
      target: { address: "203.0.114.10", family: 4 },
    });
    const anyPolicy = new RouteTargets({ policy: "any" });
    expect(await anyPolicy.check("10.0.0.7", 80)).toEqual({
      ok: true,
      target: { address: "10.0.0.7", family: 4 },
    });
  });
});
