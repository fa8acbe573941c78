import { hashSeed } from "./bodies.js";
import type { Workload } from "./workload.js";

/** Part `index` of `count` (`--shard 1/4`: the second of four; indexes from 0). */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

export const WHOLE: Shard = { index: 0, count: 1 };

/** `i/N` as a shard; the message says what to write. */
export function parseShard(text: string): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = match ? Number(match[1]) : NaN;
  const count = match ? Number(match[2]) : NaN;
  if (!match || count < 1 || index >= count)
    throw new Error(`expected i/N with 0 <= i < N (the shard's place among N, from 0), got "${text}"`);
  return { index, count };
}

/**
 * The places in a fleet of `total` modules that a shard runs, and of those the ones a worker of
 * the shard runs: every `count`-th from `index`, so that shards and workers get a like mix of the
 * workload's groups.
 */
export function placesOf(total: number, shard: Shard = WHOLE, part: Shard = WHOLE): number[] {
  const places: number[] = [];
  let n = 0;
  for (let place = shard.index; place < total; place += shard.count) {
    if (n++ % part.count === part.index) places.push(place);
  }
  return places;
}

/** A module's seat in the fleet: its place, its group (an index into the workload's groups), its identity. */
export interface FleetSeat {
  readonly place: number;
  readonly group: number;
  readonly deviceUid: string;
  readonly serial: string;
}

/** The seats of the modules a shard (and a worker of it) runs, in place order. */
export function fleetSeats(
  workload: Workload,
  total: number,
  shard: Shard = WHOLE,
  part: Shard = WHOLE,
): FleetSeat[] {
  const ends = groupRanges(workload, total);
  const tag = fleetTag(workload);
  return placesOf(total, shard, part).map((place) => {
    const group = groupAt(ends, place);
    return {
      place,
      group,
      deviceUid: fleetDeviceUid(tag, place),
      serial: fleetSerial(workload, workload.groups[group]!.name, place),
    };
  });
}

/** The fleet's tag: six digits from the workload's seed (or name), the same on every shard. */
export function fleetTag(workload: Workload): number {
  return hashSeed(workload.seed ?? workload.name ?? "fleet") % 1_000_000;
}

/**
 * The DeviceUID of the module at `place`: `dev:8`, the fleet's six-digit tag and the place in
 * eight digits. Shards of one fleet (one workload seed) never share one, whichever machine runs
 * them; fleets of other seeds differ in their tag.
 */
export function fleetDeviceUid(tag: number, place: number): string {
  if (place >= 100_000_000) throw new Error("a fleet has at most 100,000,000 modules");
  return `dev:8${String(tag).padStart(6, "0")}${String(place).padStart(8, "0")}`;
}

/** The serial number (`hub.set sn`) of the module at `place`. */
export function fleetSerial(workload: Workload, group: string, place: number): string {
  return `${workload.name ?? "fleet"}-${group}-${place}`;
}

/** Which group each place belongs to: the groups' shares of `total`, in order, by largest remainder. */
export function groupRanges(workload: Workload, total: number): number[] {
  const shares = workload.groups.map((g) => g.share ?? 1);
  const sum = shares.reduce((a, b) => a + b, 0);
  const exact = shares.map((s) => (s / sum) * total);
  const counts = exact.map(Math.floor);
  let left = total - counts.reduce((a, b) => a + b, 0);
  const byRemainder = exact.map((e, i) => [e - Math.floor(e), i] as const).sort((a, b) => b[0] - a[0]);
  for (const [, i] of byRemainder) {
    if (left-- <= 0) break;
    counts[i]!++;
  }
  // The first place after each group's range.
  const ends: number[] = [];
  let end = 0;
  for (const count of counts) ends.push((end += count));
  return ends;
}

/** The group of the module at `place`, given `groupRanges`. */
export function groupAt(ends: readonly number[], place: number): number {
  const i = ends.findIndex((end) => place < end);
  return i < 0 ? ends.length - 1 : i;
}

/** A number in [0, 1) from the seed, a place and a purpose: offsets, shares, positions. */
export function unitFor(seed: number, place: number, purpose: string): number {
  return hashSeed(`${seed}/${place}/${purpose}`) / 4294967296;
}
