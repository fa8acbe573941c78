import { afterEach, describe, expect, it } from "vitest";
import { FakeClock, Fleet, fleetDeviceUid, InProcessHub, parseShard, parseWorkload } from "cardsim";

// A fleet split in two shards (`--shard 0/2` and `--shard 1/2`, as two machines run it) syncing
// with one hub: each shard's modules take the identities of their places in the whole fleet, so
// the hub ends with every module of the fleet once, as a device of its own, with serial numbers
// of their own, and neither shard has a device of the other.

const WORKLOAD = parseWorkload(
  `
name: shards
seed: shard-test
groups:
  - name: meters
    sync: { mode: periodic, outbound: 10, inbound: 60 }
    notefiles:
      - { file: meter.qo, every: 5m, body: { kwh: { $random: [0, 5] } } }
`,
  "shards.yaml",
);
const MODULES = 11;

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

describe("two shards of a fleet against one hub", () => {
  it("never share a device UID, and together are the whole fleet", async () => {
    const clock = new FakeClock();
    const hub = await InProcessHub.start({ clock });
    closers.push(() => hub.close());
    const shards = [];
    for (const text of ["0/2", "1/2"]) {
      const fleet = await Fleet.start({
        modules: MODULES,
        workload: WORKLOAD,
        shard: parseShard(text),
        clock,
        hub: { connection: hub.connection(), api: hub },
      });
      closers.push(() => fleet.close());
      shards.push(fleet);
    }
    // The shards run one after the other on the hub's clock, as two machines would side by side.
    for (const fleet of shards) {
      const summary = await fleet.run(30 * 60_000);
      expect(summary.sessions.failed).toBe(0);
    }
    const [a, b] = shards.map((f) => f.members.map((m) => m.deviceUid));
    expect(a).toHaveLength(6);
    expect(b).toHaveLength(5);
    expect(a!.filter((d) => b!.includes(d))).toEqual([]);
    const { devices, has_more } = await hub.getDevices({ pageSize: 100 });
    expect(has_more).toBe(false);
    const uids = devices.map((d) => String(d["uid"])).sort();
    expect(uids).toEqual([...a!, ...b!].sort());
    // Each is the DeviceUID of its place in the whole fleet.
    expect(new Set(uids)).toEqual(
      new Set(
        Array.from({ length: MODULES }, (_, place) => fleetDeviceUid(Number(uids[0]!.slice(5, 11)), place)),
      ),
    );
    const serials = devices.map((d) => String(d["serial_number"]));
    expect(new Set(serials).size).toBe(MODULES);
    expect(serials.every((s) => /^shards-meters-\d+$/.test(s))).toBe(true);
  });

  it("refuses a shard that is not i/N with i below N, saying what to write", () => {
    for (const bad of ["2/2", "1", "a/b", "0/0", "-1/3"])
      expect(() => parseShard(bad)).toThrow(/expected i\/N with 0 <= i < N/);
    expect(parseShard(" 3 / 8 ")).toEqual({ index: 3, count: 8 });
  });
});
