import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retainedBytesBy } from "../../support/retainedHeap.js";
import { TestHub } from "../support/hubFixture.js";

let hub: TestHub;
beforeAll(async () => {
  hub = await TestHub.start();
});
afterAll(async () => {
  await hub.app.close();
});

/** Writes a device `versions` times, each a new document read back, and returns the heap it leaves retained. */
function versionsOf(uid: string, versions: number): Promise<number> {
  return retainedBytesBy(async () => {
    for (let v = 0; v < versions; v++) {
      await hub.store.devices.putDevice({
        uid,
        projectUid: hub.projectUid,
        productUid: hub.productUid,
        voltage: 3 + v / 10_000,
        lastActivity: v,
        details: { dfu: { note: `version ${v} ${"x".repeat(400)}` } },
      });
      await hub.store.devices.getDevice(uid);
    }
  });
}

describe("the SQLite device store", () => {
  it("keeps one parsed document per device, not one per version it had (a fleet's devices change at every session)", async () => {
    await versionsOf("dev:864475040000001", 50); // warm-up: statements prepared, code compiled
    const few = await versionsOf("dev:864475040000002", 10);
    const many = await versionsOf("dev:864475040000003", 3000);
    // One version kept is about a kilobyte of objects; 3,000 of them would be megabytes.
    expect(many - few).toBeLessThan(300 * 1024);
  });
});
