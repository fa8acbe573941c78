import { isIPv4, isIPv6 } from "node:net";

/**
 * What kind of address an IP literal is, for the route target policy. Only `public` may be a
 * target under `public-only`; every other kind names why not.
 */
export type AddressKind =
  | "public"
  /** A cloud provider's instance metadata service (169.254.169.254, fd00:ec2::254, …). */
  | "metadata"
  /** 127.0.0.0/8, ::1. */
  | "loopback"
  /** 10/8, 172.16/12, 192.168/16, unique local fc00::/7, site-local fec0::/10. */
  | "private"
  /** 169.254/16, fe80::/10. */
  | "link-local"
  /** Carrier-grade NAT, 100.64.0.0/10 (shared address space). */
  | "cgnat"
  /** 0.0.0.0/8, :: (the "this host" addresses: they reach the local machine). */
  | "unspecified"
  /** 224/4, ff00::/8. */
  | "multicast"
  /** 240/4 and broadcast, documentation and benchmarking ranges, other IETF special uses. */
  | "reserved";

/** A well-known metadata service address (they are all in forbidden ranges anyway; this names them). */
const METADATA_V4 = ["169.254.169.254", "169.254.170.2", "169.254.169.253", "100.100.100.200", "192.0.0.192"];
const METADATA_V6 = ["fd00:ec2::254", "fd00:ec2::23"];

/** IPv4 ranges as [first address, prefix length, kind], checked in order. */
const V4_RANGES: readonly (readonly [string, number, AddressKind])[] = [
  ["0.0.0.0", 8, "unspecified"],
  ["127.0.0.0", 8, "loopback"],
  ["10.0.0.0", 8, "private"],
  ["172.16.0.0", 12, "private"],
  ["192.168.0.0", 16, "private"],
  ["169.254.0.0", 16, "link-local"],
  ["100.64.0.0", 10, "cgnat"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
  ["192.0.0.0", 24, "reserved"],
  ["192.0.2.0", 24, "reserved"],
  ["198.18.0.0", 15, "reserved"],
  ["198.51.100.0", 24, "reserved"],
  ["203.0.113.0", 24, "reserved"],
];

/** IPv6 ranges, checked in order after the exact addresses and the IPv4-embedding prefixes. */
const V6_RANGES: readonly (readonly [string, number, AddressKind])[] = [
  ["fc00::", 7, "private"],
  ["fec0::", 10, "private"],
  ["fe80::", 10, "link-local"],
  ["ff00::", 8, "multicast"],
  ["2001:db8::", 32, "reserved"],
  ["100::", 64, "reserved"],
  // What is left of ::/8 (IPv4-compatible and other unassigned forms) reaches nothing public.
  ["::", 8, "reserved"],
];

function v4Number(text: string): bigint {
  return text.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

/** A valid IPv6 literal (no zone) as a 128-bit number. */
function v6Number(text: string): bigint {
  let head = text;
  let tail: bigint[] = [];
  // An embedded dotted IPv4 tail (`::ffff:1.2.3.4`) is two groups.
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    head = `${dotted[1]}0:0`;
    const v4 = v4Number(dotted[2]!);
    tail = [v4 >> 16n, v4 & 0xffffn];
  }
  const [left, right] = head.includes("::") ? head.split("::") : [head, undefined];
  const groups = (s: string | undefined): bigint[] =>
    s === undefined || s === "" ? [] : s.split(":").map((g) => BigInt(parseInt(g, 16)));
  const l = groups(left);
  const r = groups(right);
  const all = right === undefined ? l : [...l, ...Array<bigint>(8 - l.length - r.length).fill(0n), ...r];
  if (tail.length) all.splice(6, 2, ...tail);
  return all.reduce((n, g) => (n << 16n) | g, 0n);
}

function inRange(value: bigint, first: bigint, prefix: number, bits: number): boolean {
  const shift = BigInt(bits - prefix);
  return value >> shift === first >> shift;
}

function v4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 0xffn)).join(".");
}

function classifyV4(n: bigint): AddressKind {
  if (METADATA_V4.some((m) => v4Number(m) === n)) return "metadata";
  for (const [first, prefix, kind] of V4_RANGES) if (inRange(n, v4Number(first), prefix, 32)) return kind;
  return "public";
}

/** The IPv4 address an IPv6 one carries: IPv4-mapped, NAT64 (64:ff9b::/96), 6to4 (2002::/16). */
function embeddedV4(n: bigint): bigint | undefined {
  if (n >> 32n === 0xffffn) return n & 0xffffffffn; // ::ffff:a.b.c.d
  if (n >> 32n === 0x64ff9b0000000000000000n) return n & 0xffffffffn; // 64:ff9b::a.b.c.d
  if (n >> 112n === 0x2002n) return (n >> 80n) & 0xffffffffn; // 2002:AABB:CCDD::
  return undefined;
}

function classifyV6(n: bigint): AddressKind {
  if (n === 0n) return "unspecified";
  if (n === 1n) return "loopback";
  if (METADATA_V6.some((m) => v6Number(m) === n)) return "metadata";
  const v4 = embeddedV4(n);
  if (v4 !== undefined) return classifyV4(v4);
  for (const [first, prefix, kind] of V6_RANGES) if (inRange(n, v6Number(first), prefix, 128)) return kind;
  return "public";
}

/** The address without brackets or an IPv6 zone (`fe80::1%eth0`). */
function bare(address: string): string {
  const unbracketed = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  const zone = unbracketed.indexOf("%");
  return zone >= 0 ? unbracketed.slice(0, zone) : unbracketed;
}

/** True for an IPv4 or IPv6 literal (brackets and a zone allowed). */
export function isIpLiteral(address: string): boolean {
  const a = bare(address);
  return isIPv4(a) || isIPv6(a);
}

/** The kind of an IP literal; undefined when it is not one (a host name). */
export function classifyAddress(address: string): AddressKind | undefined {
  const a = bare(address);
  if (isIPv4(a)) return classifyV4(v4Number(a));
  if (isIPv6(a)) return classifyV6(v6Number(a.toLowerCase()));
  return undefined;
}

/**
 * One canonical text per address, for comparing them: IPv4 dotted; IPv6 lower-case and fully
 * expanded, an IPv4-mapped one as its IPv4 (`::ffff:127.0.0.1` is `127.0.0.1`). Undefined for a
 * host name.
 */
export function canonicalAddress(address: string): string | undefined {
  const a = bare(address);
  if (isIPv4(a)) return v4Text(v4Number(a));
  if (!isIPv6(a)) return undefined;
  const n = v6Number(a.toLowerCase());
  if (n >> 32n === 0xffffn) return v4Text(n & 0xffffffffn);
  return Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - i * 16)) & 0xffffn).toString(16)).join(":");
}

/** Why `public-only` refuses an address of this kind (for logs and 400s). */
export function describeKind(kind: AddressKind): string {
  switch (kind) {
    case "public":
      return "a public address";
    case "metadata":
      return "a cloud metadata service address";
    case "loopback":
      return "a loopback address";
    case "private":
      return "a private network address";
    case "link-local":
      return "a link-local address";
    case "cgnat":
      return "a carrier-grade NAT (shared) address";
    case "unspecified":
      return "an unspecified address (it reaches this machine)";
    case "multicast":
      return "a multicast address";
    case "reserved":
      return "a reserved address";
  }
}
