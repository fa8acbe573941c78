import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseWorkload, runFleet, startHub, SystemClock, type RunningHub } from "cardsim";

// With a hub elsewhere (here one listening on loopback with HTTPS, as `cardsim hub` does), a
// fleet's modules run in worker threads on clocks at a multiple of real time, each syncing over
// HTTPS. However the run's real time falls, every note the workload added is one event on the hub,
// each device has the identity of its place, and the threads' counts add up to one summary.

const WORKLOAD = parseWorkload(
  `
name: threads
seed: threads-1
groups:
  - name: sensors
    sync: { mode: periodic, outbound: 10, inbound: 30 }
    notefiles:
      - { file: sensors.qo, every: 5m, body: { t: { $random: [18, 26] } }, bytes: 100 }
`,
);
const MODULES = 12;
let hub: RunningHub | undefined;
let dir: string | undefined;

afterAll(async () => {
  await hub?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a fleet in two worker threads against a hub over HTTPS", () => {
  it("brings every note to the hub once, from devices of the fleet's identities", async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-fleet-threads-"));
    hub = await startHub({
      dir,
      listen: "127.0.0.1:0",
      tlsListen: "127.0.0.1:0",
      clock: new SystemClock(),
      helloLimits: false,
    });
    const run = await runFleet({
      modules: MODULES,
      workload: WORKLOAD,
      hub: { url: hub.tlsUrl!, ca: hub.credentials.ca_cert!, product: hub.credentials.product_uid },
      workers: 2,
      speed: 600,
      durationMs: 20 * 60_000,
    });
    const s = run.summary;
    expect(s.modules).toBe(MODULES);
    expect(s.sessions.failed).toBe(0);
    expect(s.events).toBeNull();
    expect(s.notes.added).toBeGreaterThanOrEqual(MODULES * 3);
    expect(s.notes.up).toBe(s.notes.added);
    let events = 0;
    const devices = (await hub.getDevices({ pageSize: 100 })).devices.map((d) => String(d["uid"]));
    expect(devices).toHaveLength(MODULES);
    for (const device of devices) {
      expect(device).toMatch(/^dev:8\d{6}000000(0\d|1[01])$/);
      const page = await hub.getEvents({ deviceUID: device, files: "sensors.qo", pageSize: 100 });
      expect(new Set(page.events.map((e) => e.event)).size).toBe(page.events.length);
      events += page.events.length;
    }
    expect(events).toBe(s.notes.added);
  }, 300_000);
});
