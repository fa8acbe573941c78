import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { networkInterfaces } from "node:os";
import { canonicalAddress, classifyAddress, describeKind, isIpLiteral } from "./addressClass.js";

/**
 * Which addresses routes (http, proxy, mqtt) may reach. `any`: every address but the hub's own
 * listening ones (a local tool's routes go to the user's own backend on loopback). `public-only`:
 * public unicast addresses only (no loopback, private, link-local, CGNAT, unspecified, multicast,
 * reserved or metadata addresses, nor their IPv4-mapped forms), for a hub others can reach.
 */
export type RouteTargetPolicy = "any" | "public-only";

export const ROUTE_TARGET_POLICIES: readonly RouteTargetPolicy[] = ["any", "public-only"];

/** An address the hub listens on (its HTTP or HTTPS API), as bound: `0.0.0.0`/`::` cover every local address. */
export interface ListeningAddress {
  host: string;
  port: number;
}

/** `dns.lookup(host, {all: true})` (injectable for tests). */
export type AddressLookup = (host: string) => Promise<LookupAddress[]>;

export interface RouteTargetOptions {
  /** Default `any`. */
  policy?: RouteTargetPolicy;
  /** The hub's own listening addresses, read at each check (they are known only once it listens). */
  listening?: () => readonly ListeningAddress[];
  /** Resolves host names (default `dns.lookup` with every address). */
  lookup?: AddressLookup;
  /** This machine's interface addresses (default `os.networkInterfaces()`), for wildcard binds. */
  localAddresses?: () => readonly string[];
}

/** An address a delivery may connect to, checked: connect to it, not to the name again. */
export interface CheckedTarget {
  address: string;
  family: 4 | 6;
}

export type TargetCheck = { ok: true; target: CheckedTarget } | { ok: false; reason: string };

const defaultLookup: AddressLookup = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

function localInterfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((i) => i.address));
}

/** `localhost` and its subdomains (RFC 6761: always loopback). */
function isLocalhostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "ip6-localhost" || h === "ip6-loopback";
}

/** The port a URL reaches: its own, or its scheme's default. */
export function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  switch (url.protocol) {
    case "https:":
    case "wss:":
      return 443;
    case "mqtts:":
    case "mqtts+tcp:":
    case "ssl:":
    case "tls:":
      return 8883;
    case "mqtt:":
    case "tcp:":
      return 1883;
    default:
      return 80;
  }
}

/** A URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
}

/**
 * The route target policy: whether a route may point at an address. Checked when a route is
 * created or updated (IP literals and localhost names: the hub's own addresses, and the policy)
 * and again at each delivery, where the host is resolved (every address it resolves to must pass)
 * and the delivery connects to the address checked, so a name resolving elsewhere a moment later
 * (DNS rebinding) cannot switch it.
 */
export class RouteTargets {
  readonly policy: RouteTargetPolicy;
  readonly #listening: () => readonly ListeningAddress[];
  readonly #lookup: AddressLookup;
  readonly #localAddresses: () => readonly string[];

  constructor(options: RouteTargetOptions = {}) {
    this.policy = options.policy ?? "any";
    this.#listening = options.listening ?? (() => []);
    this.#lookup = options.lookup ?? defaultLookup;
    this.#localAddresses = options.localAddresses ?? localInterfaceAddresses;
  }

  /**
   * Why the address (an IP literal) may not be a target on this port, or undefined when it may.
   * `shown` is what the route names (the host name it resolved from, if any).
   */
  refusal(address: string, port: number, shown = address): string | undefined {
    const listening = this.#ownAddress(address, port);
    if (listening) {
      return `${shown}:${port} is the hub's own API (it listens on ${listening}): a route there would loop back into the hub`;
    }
    if (this.policy === "public-only") {
      const kind = classifyAddress(address);
      if (kind !== undefined && kind !== "public") {
        const via = shown === address ? "" : ` (${shown} resolves to ${address})`;
        return `${address}${via} is ${describeKind(kind)}: the hub's route target policy is public-only (cardsim hub --route-targets)`;
      }
    }
    return undefined;
  }

  /**
   * Checks a route's URL as defined, without resolving names: IP literals and localhost names.
   * Undefined when it passes (a host name passes: it is checked when it is resolved, at delivery).
   */
  definitionRefusal(url: URL): string | undefined {
    const host = hostOf(url);
    const port = portOf(url);
    if (isIpLiteral(host)) return this.refusal(host, port);
    if (isLocalhostName(host)) {
      for (const loopback of ["127.0.0.1", "::1"]) {
        const why = this.refusal(loopback, port, host);
        if (why) return why;
      }
    }
    return undefined;
  }

  /** Resolves the host (every address must pass) and answers the address to connect to. */
  async check(host: string, port: number): Promise<TargetCheck> {
    if (isIpLiteral(host)) {
      const why = this.refusal(host, port);
      const address = host.startsWith("[") ? host.slice(1, -1) : host;
      return why ? { ok: false, reason: why } : { ok: true, target: { address, family: family(address) } };
    }
    let addresses: LookupAddress[];
    try {
      addresses = await this.#lookup(host);
    } catch (error) {
      return { ok: false, reason: `cannot resolve ${host}: ${(error as Error).message}` };
    }
    if (addresses.length === 0) return { ok: false, reason: `cannot resolve ${host}: no address` };
    for (const a of addresses) {
      const why = this.refusal(a.address, port, host);
      if (why) return { ok: false, reason: why };
    }
    const first = addresses[0]!;
    return { ok: true, target: { address: first.address, family: first.family === 6 ? 6 : 4 } };
  }

  /** The listening address (as text) this address and port reach, if it is one of the hub's. */
  #ownAddress(address: string, port: number): string | undefined {
    const target = canonicalAddress(address);
    if (target === undefined) return undefined;
    // 0.0.0.0 and :: as a destination reach this machine: whatever listens on the port.
    const anyLocal = classifyAddress(target) === "unspecified";
    for (const l of this.#listening()) {
      if (l.port !== port) continue;
      const shown = `${l.host.includes(":") ? `[${l.host}]` : l.host}:${l.port}`;
      if (anyLocal) return shown;
      const host = l.host === "" ? "::" : l.host;
      const bound = canonicalAddress(host);
      if (bound === undefined) {
        // A name (localhost): whatever it may mean on this machine.
        if (isLocalhostName(host) && isLoopbackOrUnspecified(target)) return shown;
        continue;
      }
      if (bound === target) return shown;
      const wildcard = bound === "0.0.0.0" || bound === canonicalAddress("::");
      if (wildcard && this.#isLocal(target)) return shown;
    }
    return undefined;
  }

  /** True for an address of this machine: loopback, unspecified, or an interface's. */
  #isLocal(canonical: string): boolean {
    if (isLoopbackOrUnspecified(canonical)) return true;
    return this.#localAddresses().some((a) => canonicalAddress(a) === canonical);
  }
}

function isLoopbackOrUnspecified(address: string): boolean {
  const kind = classifyAddress(address);
  return kind === "loopback" || kind === "unspecified";
}

function family(address: string): 4 | 6 {
  return address.includes(":") ? 6 : 4;
}
