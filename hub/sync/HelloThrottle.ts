import { limitSweeper, type ClusterStore } from "../store/ClusterStore.js";

/**
 * How many `hello` messages (unauthenticated: anyone may send one) the hub answers, as token
 * buckets on the hub clock: each holds a minute's worth and refills at that rate. `perDevice`
 * counts the hellos naming one DeviceUID from one source address (so that nobody can use up a
 * device's allowance from another address), `perSource` every hello from one address (a fleet
 * behind one NAT address shares it). Only hellos that came over the network count: in process
 * (fleets, tests, `cardsim up`'s own module) there is no stranger to hold off.
 */
export interface HelloLimits {
  /** Hellos a minute for one DeviceUID from one source address. */
  readonly perDevice: number;
  /** Hellos a minute from one source address, whatever the devices. */
  readonly perSource: number;
}

/**
 * Generous enough for a fleet behind one address and for every test suite (a module says hello
 * once a session; a crash-safety run repeats a session a few dozen times a minute at most).
 */
export const DEFAULT_HELLO_LIMITS: Readonly<HelloLimits> = { perDevice: 120, perSource: 6000 };

/** `off`, or `DEVICE/min,SOURCE/min` (like `120/min,6000/min`): the hub's `--hello-limit`. */
export function parseHelloLimits(text: string): HelloLimits | false {
  const t = text.trim().toLowerCase();
  if (["off", "none", "false"].includes(t)) return false;
  const m = /^(\d+)\s*\/\s*min\s*,\s*(\d+)\s*\/\s*min$/.exec(t);
  const perDevice = Number(m?.[1]);
  const perSource = Number(m?.[2]);
  if (!m || !(perDevice >= 1) || !(perSource >= 1) || !Number.isSafeInteger(perDevice + perSource)) {
    throw new Error(
      `expected off, or hellos a minute per device and per source address like "120/min,6000/min", got "${text}"`,
    );
  }
  return { perDevice, perSource };
}

/**
 * The source a hello is counted against: an IPv4 address (also when it came IPv4-mapped), or the
 * /64 network of an IPv6 address (one host is commonly given a whole /64, and could otherwise
 * change address at every hello).
 */
export function helloSource(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (!address.includes(":")) return address;
  const bare = address.split("%")[0]!.toLowerCase();
  const [head, tail] = bare.includes("::") ? bare.split("::") : [bare, undefined];
  const front = head ? head.split(":") : [];
  const back = tail ? tail.split(":") : [];
  const groups =
    tail === undefined
      ? front
      : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill("0"), ...back];
  return `${groups
    .slice(0, 4)
    .map((g) => (Number.parseInt(g, 16) || 0).toString(16))
    .join(":")}::/64`;
}

/** A token bucket: tokens left when last taken from, at that hub time. */
export interface Bucket {
  tokens: number;
  at: number;
}

/** A refused hello: how long to wait (ms) and which limit refused it. */
export interface HelloRefusal {
  wait: number;
  limit: string;
}

/** The hello limits as the device sync asks them (in memory, or shared by several hub processes). */
export interface HelloLimiter {
  /** Takes one hello from the device's and the source's buckets, or refuses it (taking nothing). */
  take(
    device: string,
    source: string,
    now: number,
  ): HelloRefusal | undefined | Promise<HelloRefusal | undefined>;
  prune(now: number): void;
}

/** The buckets' keys of a hello: the device from the source, and the source. */
export function helloBucketKeys(device: string, source: string): [string, string] {
  return [`d\n${source}\n${device}`, `s\n${source}`];
}

/** The buckets refilled to `now`, and the hello taken from both, or the refusal (nothing taken). */
export function takeHello(
  limits: HelloLimits,
  buckets: readonly [Bucket | undefined, Bucket | undefined],
  now: number,
): { buckets: [Bucket, Bucket] } | { refused: HelloRefusal } {
  const perDevice = refill(buckets[0], limits.perDevice, now);
  const perSource = refill(buckets[1], limits.perSource, now);
  if (perSource.tokens < 1)
    return { refused: { wait: waitOf(perSource, limits.perSource), limit: "from this address" } };
  if (perDevice.tokens < 1)
    return { refused: { wait: waitOf(perDevice, limits.perDevice), limit: "for this device" } };
  perDevice.tokens--;
  perSource.tokens--;
  return { buckets: [perDevice, perSource] };
}

function refill(bucket: Bucket | undefined, perMinute: number, now: number): Bucket {
  if (!bucket) return { tokens: perMinute, at: now };
  const tokens = Math.min(perMinute, bucket.tokens + (Math.max(0, now - bucket.at) * perMinute) / 60_000);
  return { tokens, at: now };
}

function waitOf(bucket: Bucket, perMinute: number): number {
  return Math.ceil(((1 - bucket.tokens) * 60_000) / perMinute);
}

/** Buckets kept at most; beyond it full buckets go first, then the least recently used. */
const MAX_BUCKETS = 100_000;

/**
 * The hello limits of several hub processes over one store: the buckets are the store's
 * (ClusterStore.updateLimits), so a round-robin in front of the processes gives no more hellos
 * than one process would.
 */
export class SharedHelloThrottle implements HelloLimiter {
  /** Buckets full again go (one process's sweep a minute does it). */
  readonly prune: (now: number) => void;

  constructor(
    readonly limits: HelloLimits,
    private readonly cluster: ClusterStore,
  ) {
    this.prune = limitSweeper(cluster);
  }

  take(device: string, source: string, now: number): Promise<HelloRefusal | undefined> {
    return this.cluster.updateLimits(helloBucketKeys(device, source), ([perDevice, perSource]) => {
      const taken = takeHello(this.limits, [bucketOf(perDevice), bucketOf(perSource)], now);
      if ("refused" in taken) return { result: taken.refused };
      // A bucket untouched for a minute is full again: as good as none.
      const states = taken.buckets.map((b) => ({ data: `${b.tokens} ${b.at}`, expires: b.at + 60_000 }));
      return { states, result: undefined };
    });
  }
}

/** A bucket as SharedHelloThrottle keeps it ("tokens at"), or none. */
function bucketOf(state: string | undefined): Bucket | undefined {
  if (state === undefined) return undefined;
  const [tokens, at] = state.split(" ").map(Number);
  return Number.isFinite(tokens) && Number.isFinite(at) ? { tokens: tokens!, at: at! } : undefined;
}

/** The hello limits on the hub clock (state in memory: a restarted hub starts with full buckets). */
export class HelloThrottle implements HelloLimiter {
  readonly #buckets = new Map<string, Bucket>();

  constructor(readonly limits: HelloLimits) {}

  /**
   * Takes one hello from the buckets of the device and the source, or says how long to wait
   * (milliseconds) and which limit refused it; a refused hello takes nothing.
   */
  take(device: string, source: string, now: number): HelloRefusal | undefined {
    const keys = helloBucketKeys(device, source);
    const taken = takeHello(this.limits, [this.#buckets.get(keys[0]), this.#buckets.get(keys[1])], now);
    if ("refused" in taken) {
      // Kept refilled (and in order of use), as taken.
      return taken.refused;
    }
    keys.forEach((key, i) => this.#put(key, taken.buckets[i]!, now));
    return undefined;
  }

  /** Forgets buckets that refilled (a full bucket is the same as none). */
  prune(now: number): void {
    for (const [key, bucket] of this.#buckets) {
      const limit = key.startsWith("s\n") ? this.limits.perSource : this.limits.perDevice;
      if (bucket.tokens + ((now - bucket.at) * limit) / 60_000 >= limit) this.#buckets.delete(key);
    }
  }

  get size(): number {
    return this.#buckets.size;
  }

  #put(key: string, bucket: Bucket, now: number): void {
    this.#buckets.delete(key); // re-inserted: the map stays in order of use
    if (this.#buckets.size >= MAX_BUCKETS) this.#makeRoom(now);
    this.#buckets.set(key, bucket);
  }

  #makeRoom(now: number): void {
    this.prune(now);
    for (const key of this.#buckets.keys()) {
      if (this.#buckets.size < MAX_BUCKETS) break;
      this.#buckets.delete(key);
    }
  }
}
