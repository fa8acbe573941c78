import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, type JsonObject } from "../../../core/json.js";
import { md5Hex } from "../../../core/md5.js";
import { deviceEventUid, uuidFromHex } from "../../../protocol/eventUid.js";
import type { NoteRecord } from "../../../protocol/NoteRecord.js";
import { md5Hex as hubMd5 } from "../../../hub/md5.js";
import { eventBaseOf, noteEvent } from "../../../hub/sync/syncDocuments.js";
import type { SyncSession } from "../../../hub/sync/SyncSessions.js";
import type { DeviceRecord, LocationRecord } from "../../../hub/store/records.js";

const place = fc.record({
  whenSec: fc.nat(),
  name: fc.string(),
  country: fc.string(),
  timezone: fc.string(),
  latitude: fc.double({ min: -90, max: 90, noNaN: true }),
  longitude: fc.double({ min: -180, max: 180, noNaN: true }),
});
const device = fc.record({
  serialNumber: fc.option(fc.string({ minLength: 1 })),
  gps: fc.option(place),
  tower: fc.option(place),
  tri: fc.option(place),
});
const note = fc.record(
  {
    id: fc.string({ minLength: 1 }),
    when: fc.nat(),
    updates: fc.nat(),
    endpoint: fc.constant(""),
    change: fc.nat(),
    deleted: fc.constant(true as const),
    body: fc.dictionary(fc.string({ unit: "binary" }), fc.jsonValue()),
    payload: fc.base64String(),
    where: fc.record({ lat: fc.double({ noNaN: true }), lon: fc.double({ noNaN: true }), time: fc.nat() }),
  },
  { requiredKeys: ["id", "when", "updates", "endpoint", "change"] },
);

describe("a synced note's event", () => {
  it("is stored as text that reads back as exactly its document, the body's keys sorted", () => {
    fc.assert(
      fc.property(device, note, fc.boolean(), fc.string(), (d, n, queue, file) => {
        const record = {
          uid: "dev:1",
          projectUid: "app:1",
          productUid: "product:x",
          serialNumber: d.serialNumber,
          details: { gpsLocation: d.gps, towerLocation: d.tower, triangulatedLocation: d.tri },
        } as unknown as DeviceRecord;
        const session = { uid: "s1", transport: "cell:lte", secure: true } as SyncSession;
        const base = eventBaseOf(record, session);
        const locate = (lat: number, lon: number, whenSec: number): LocationRecord => ({
          whenSec,
          name: "",
          country: "",
          timezone: "",
          latitude: lat,
          longitude: lon,
        });
        const event = noteEvent(base, file, n as NoteRecord, "note.add", queue, 1_767_225_600, locate);
        const parsed = JSON.parse(event.text) as JsonObject;
        // JSON text drops what JSON cannot hold (-0 reads back as 0): compare the documents as
        // JSON values.
        expect(parsed).toEqual(JSON.parse(JSON.stringify(event.data)));
        expect(Object.keys(parsed)).toHaveLength(Object.keys(event.data).length);
        if (event.data["body"] !== undefined)
          expect(event.text.endsWith(`,"body":${canonicalJson(event.data["body"])}}`)).toBe(true);
      }),
      { numRuns: 1000 },
    );
  });
});

describe("a synced note's event UID", () => {
  it("is the MD5 of the device, tracker session, notefile, note ID, updates, time, body and payload, each ended by a NUL", () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), note, (dev, tracker, file, n) => {
        const record = n as NoteRecord;
        const body = record.deleted ? "deleted" : record.body === undefined ? "" : canonicalJson(record.body);
        const parts = [
          dev,
          tracker,
          file,
          record.id,
          record.updates,
          record.when,
          body,
          record.payload ?? "",
        ];
        const text = parts.map((p) => `${p}\u0000`).join("");
        const expected = uuidFromHex(md5Hex(new TextEncoder().encode(text)));
        expect(deviceEventUid(dev, tracker, file, record)).toBe(expected);
        expect(deviceEventUid(dev, tracker, file, record, hubMd5)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});
