import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { DeviceInput, DeviceRecord } from "../../../hub/store/records.js";
import { readsBackAs } from "../../../hub/store/sqlite/deviceReadBack.js";
import type { SqliteConnection } from "../../../hub/store/sqlite/SqliteConnection.js";
import { TestHub } from "../support/hubFixture.js";

let hub: TestHub;
beforeAll(async () => {
  hub = await TestHub.start();
});
afterAll(async () => {
  await hub.app.close();
});

const UID = "dev:864475040000777";

/** What a session's open reports of a known device (SessionOpening #report), and what else a write may carry. */
const reports = fc.record(
  {
    lastActivity: fc.integer({ min: 0, max: 2 ** 45 }),
    // NaN is no number SQLite keeps (the row refuses it); the infinities and -0 are.
    voltage: fc.oneof(fc.double({ noNaN: true }), fc.constant(-0)),
    temperature: fc.double({ noNaN: true }),
    connected: fc.boolean(),
    firmwareHost: fc.string(),
    details: fc.dictionary(
      fc.string({ minLength: 1, maxLength: 6 }),
      fc.oneof(fc.integer(), fc.constant(-0)),
    ),
  },
  { requiredKeys: ["lastActivity"] },
);

describe("a SQLite device write over the record its caller read (a session's report)", () => {
  it("gives back, member for member, the record a fresh read of the stored document gives", async () => {
    const store = hub.sqlite;
    const sql = store.notefiles["sql"] as SqliteConnection;
    await hub.device({ uid: UID });
    await fc.assert(
      fc.asyncProperty(fc.array(reports, { minLength: 1, maxLength: 4 }), async (writes) => {
        let read = (await store.devices.getDevice(UID))!;
        for (const report of writes) {
          const input = { uid: UID, projectUid: hub.projectUid, productUid: hub.productUid, ...report };
          read = await store.devices.putDevice(input as DeviceInput, read);
          // The stored document, parsed afresh.
          const row = sql.get<{ doc: string }>("SELECT doc FROM devices WHERE uid = ?", UID)!;
          expect(read).toStrictEqual(JSON.parse(row.doc));
          expect(Object.isFrozen(read)).toBe(true);
        }
      }),
      { seed: 26, numRuns: 150 },
    );
  });

  it("does not parse the document it has just written from the record it built", async () => {
    const store = hub.store;
    await hub.device({ uid: UID });
    let read = (await store.devices.getDevice(UID))!;
    read = await store.devices.putDevice(
      { uid: UID, projectUid: hub.projectUid, productUid: hub.productUid, lastActivity: 1 },
      read,
    );
    const parse = vi.spyOn(JSON, "parse");
    try {
      for (let at = 2; at < 12; at++) {
        read = await store.devices.putDevice(
          {
            uid: UID,
            projectUid: hub.projectUid,
            productUid: hub.productUid,
            lastActivity: at,
            voltage: 3.3,
          },
          read,
        );
      }
      expect(parse).not.toHaveBeenCalled();
      expect(read.lastActivity).toBe(11);
    } finally {
      parse.mockRestore();
    }
  });

  it("takes a built record only when JSON would give it back unchanged", () => {
    const record = { uid: "dev:1", voltage: 3.3, details: {} } as unknown as DeviceRecord;
    expect(readsBackAs(record)).toBe(true);
    for (const odd of [undefined, Number.NaN, Number.POSITIVE_INFINITY, -0])
      expect(readsBackAs({ ...record, voltage: odd } as unknown as DeviceRecord)).toBe(false);
  });
});
