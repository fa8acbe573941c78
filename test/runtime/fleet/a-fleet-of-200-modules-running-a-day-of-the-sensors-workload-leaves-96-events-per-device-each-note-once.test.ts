import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Fleet, SENSORS_WORKLOAD, startHub, SystemClock, type FleetSummary } from "cardsim";

// Workload W (a 100-byte note to sensors.qo every 15 minutes, periodic outbound:60 inbound:240)
// on 200 modules for one day of the fleet's fake clock, against the fleet's own hub in a
// directory. Every device then has exactly 96 events of sensors.qo, one per note (their seq
// fields 1..96, none twice), read through the hub's REST API; and the directory is a hub
// directory that `startHub` (what `cardsim hub --dir` runs) opens with the same events.

const MODULES = 200;
const DAY = 86_400_000;
const dirs: string[] = [];

afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

describe("a fleet of 200 modules running a day of workload W", () => {
  it("leaves exactly 96 events per device, every note exactly one event, and no failed session", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cardsim-fleet-w-"));
    dirs.push(dir);
    const fleet = await Fleet.start({ modules: MODULES, workload: SENSORS_WORKLOAD, hub: { dir } });
    let summary: FleetSummary;
    const devices = fleet.members.map((m) => m.deviceUid);
    try {
      summary = await fleet.run(DAY);
      expect(summary.sessions.failed).toBe(0);
      expect(summary.errors).toEqual({});
      expect(summary.notes).toEqual({ added: MODULES * 96, up: MODULES * 96, down: 0 });
      expect(summary.events?.notes).toBe(MODULES * 96);
      // 24 outbound sessions a day (every fourth also inbound), and the last one of the run.
      expect(summary.sessions.ok).toBeGreaterThanOrEqual(MODULES * 23);
      expect(summary.sessions.ok).toBeLessThanOrEqual(MODULES * 25);
      expect(summary.penaltyBoxes).toBe(0);
      expect(new Set(devices).size).toBe(MODULES);
      const hub = fleet.hub!;
      for (const device of devices) {
        const page = await hub.getEvents({ deviceUID: device, files: "sensors.qo", pageSize: 500 });
        expect(page.has_more).toBe(false);
        const seqs = page.events.map((e) => (e["body"] as { seq: number }).seq).sort((a, b) => a - b);
        expect(seqs, device).toEqual(Array.from({ length: 96 }, (_, i) => i + 1));
      }
    } finally {
      await fleet.close();
    }
    // The directory is a hub's: it opens with the fleet's devices and events in it.
    const reopened = await startHub({
      dir,
      listen: "127.0.0.1:0",
      tlsListen: false,
      clock: new SystemClock(),
    });
    try {
      const sample = devices[MODULES - 1]!;
      const page = await reopened.getEvents({ deviceUID: sample, files: "sensors.qo", pageSize: 500 });
      expect(page.events).toHaveLength(96);
    } finally {
      await reopened.close();
    }
  }, 1_200_000);
});
