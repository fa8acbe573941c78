import { afterEach, describe, expect, it } from "vitest";
import { FakeClock, Fleet, InProcessHub, parseWorkload } from "cardsim";

// A workload with each feature at once on a small fleet, on one fake clock with a hub of the
// test's own: the outage fails sessions (counted by kind) and yet every note becomes exactly one
// event; the environment change reaches the modules at an inbound sync; the firmware campaign is
// requested of each module; the supply sags along its discharge; each module is in its area.

const WORKLOAD = parseWorkload(
  `
name: features
seed: 99
groups:
  - name: field
    sync: { mode: periodic, outbound: 15, inbound: 30 }
    notefiles:
      - file: data.qo
        every: 10m
        template: { v: 11, tag: "x" }
        body: { v: { $int: [0, 100] }, tag: { $pick: [a, b] } }
    outages:
      - { kind: hub, at: 1h, for: 50m }
      - { kind: network, at: 3h, for: 30m }
    environment:
      - { at: 30m, vars: { sample_minutes: "5" } }
    dfu: { at: 2h, bytes: 2048, version: 1.2.3 }
    supply: { source: battery, volts: 4.1 }
    discharge: linear:4.1-3.5/12h
    location: { area: { lat: 52.52, lon: 13.405, radius_km: 5 } }
`,
  "features.yaml",
);
const MODULES = 6;

let closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.reverse()) await close();
  closers = [];
});

describe("a workload with outages, an environment change, a campaign, a discharge and an area", () => {
  it("reaches every module and loses no note", async () => {
    const clock = new FakeClock();
    const hub = await InProcessHub.start({ clock });
    closers.push(() => hub.close());
    const fleet = await Fleet.start({
      modules: MODULES,
      workload: WORKLOAD,
      clock,
      hub: { connection: hub.connection(), api: hub },
      timelines: ["0", "1", "2", "3", "4", "5"],
    });
    closers.push(() => fleet.close());
    const summary = await fleet.run(6 * 3_600_000);

    // The outages failed sessions, and nothing else did, and every note arrived once.
    expect(summary.sessions.failed).toBeGreaterThan(0);
    expect(Object.values(summary.errors).reduce((a, b) => a + b, 0)).toBe(summary.sessions.failed);
    expect(summary.notes.added).toBe(MODULES * 36);
    expect(summary.notes.up).toBe(summary.notes.added);
    const HOUR = 3_600_000;
    const inOutage = (ms: number) =>
      (ms >= HOUR - 60_000 && ms < HOUR + 50 * 60_000) || (ms >= 3 * HOUR - 60_000 && ms < 3.5 * HOUR);
    const failedAt = fleet.members
      .flatMap((m) => fleet.timeline(m.deviceUid)!)
      .filter((s) => !s.ok)
      .map((s) => Date.parse(s.started) - Date.UTC(2026, 0, 1));
    expect(failedAt.length).toBe(summary.sessions.failed);
    expect(failedAt.filter((ms) => !inOutage(ms))).toEqual([]);

    for (const member of fleet.members) {
      const events = await hub.getEvents({ deviceUID: member.deviceUid, files: "data.qo", pageSize: 100 });
      expect(events.events).toHaveLength(36);
      expect(new Set(events.events.map((e) => e.event)).size).toBe(36);
      const env = await member.module.request({ req: "env.get", name: "sample_minutes" });
      expect(env?.["text"]).toBe("5");
      const dfu = await hub.getDeviceDfuStatus(member.deviceUid, "host");
      expect(JSON.stringify(dfu)).toContain("field-1.2.3");
      // Six hours along a line from 4.1 V to 3.5 V over twelve.
      expect(member.rig.power.voltage()).toBeCloseTo(3.8, 1);
      const here = member.rig.world.position()!;
      expect(Math.abs(here.lat - 52.52)).toBeLessThan(0.05);
      expect(Math.abs(here.lon - 13.405)).toBeLessThan(0.08);
    }
    const positions = new Set(fleet.members.map((m) => JSON.stringify(m.rig.world.position())));
    expect(positions.size).toBe(MODULES);
  }, 120_000);
});
