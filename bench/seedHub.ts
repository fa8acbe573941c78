import type { RunningHub } from "../runtime/startHub.js";

/**
 * Fills a hub's store as the hub API and console benchmarks read it: `devices` devices of its
 * project (serial numbers, SKUs, voltages, a tower location) and `events` events of theirs,
 * captured a minute apart in threes, one in ten a session event. Returns the DeviceUIDs.
 */
export async function seedHub(hub: RunningHub, devices: number, events: number): Promise<string[]> {
  const project = hub.credentials.project_uid;
  const uids: string[] = [];
  for (let i = 0; i < devices; i++) {
    const uid = `dev:86447504${String(i).padStart(7, "0")}`;
    uids.push(uid);
    await hub.store.devices.putDevice({
      uid,
      projectUid: project,
      productUid: hub.credentials.product_uid,
      serialNumber: `unit-${i}`,
      provisioned: Date.UTC(2026, 0, 1) + i * 1000,
      lastActivity: Date.UTC(2026, 0, 2) + i * 1000,
      sku: i % 2 ? "NOTE-WBGLW" : "NOTE-NBGL",
      voltage: 3.7 + (i % 10) / 20,
      temperature: 20 + (i % 7),
      firmwareModule: JSON.stringify({
        version: "notecard-8.1.3.17004",
        ver_major: 8,
        ver_minor: 1,
        ver_patch: 3,
        ver_build: 17004,
      }),
      tags: ["bench"],
      details: {
        towerLocation: {
          whenSec: 1_767_300_000,
          name: "Oslo",
          country: "NO",
          timezone: "Europe/Oslo",
          latitude: 59.91,
          longitude: 10.75,
        },
        towerInfo: { mcc: 242, mnc: 1, lac: 3000, cell_id: 100 + i },
      },
    });
  }
  // Events of the devices, captured a minute apart in threes, received a few seconds later.
  const base = Date.UTC(2026, 0, 1) / 1000;
  await hub.store.transaction(async () => {
    for (let i = 0; i < events; i++) {
      const captured = base + Math.floor(i / 3) * 60;
      await hub.store.telemetry.addEvent({
        uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
        projectUid: project,
        deviceUid: uids[i % devices]!,
        sessionUid: null,
        file: i % 10 === 0 ? "_session.qo" : "data.qo",
        received: captured + 5 + (i % 7),
        whenSec: captured,
        data: {
          req: "note.add",
          app: project,
          product: hub.credentials.product_uid,
          sn: `unit-${i % devices}`,
          best_id: `unit-${i % devices}`,
          body: { i, temperature: 20 + (i % 50) / 10, humidity: 40 + (i % 30) },
        },
      });
    }
  });
  return uids;
}
