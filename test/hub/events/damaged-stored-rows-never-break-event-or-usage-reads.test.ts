import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TestHub } from "../support/hubFixture.js";
import { parseCsv } from "./support/parseCsv.js";

const DAMAGED = "00000000-0000-4000-8000-0000000000d1";
const DEEP = "00000000-0000-4000-8000-0000000000d2";
const SCALAR = "00000000-0000-4000-8000-0000000000d3";

/**
 * Rows the API never writes (an older hub's, a damaged file): the filters, orders and counts that
 * look inside stored documents must read them as documents without members, never fail.
 */
describe("damaged stored events and sessions", () => {
  let hub: TestHub;
  let device: string;
  let fleet: string;

  beforeAll(async () => {
    hub = await TestHub.start();
    fleet = hub.ids.fleetUid();
    await hub.store.projects.createFleet({
      uid: fleet,
      projectUid: hub.projectUid,
      label: "F",
      created: hub.clock.now(),
      smartRule: null,
      smartRuleEnabled: false,
      watchdogMins: 0,
      connectivityAssurance: null,
    });
    device = (await hub.device({ serialNumber: "sn-1", fleetUids: [fleet] })).uid;
    const now = hub.clock.now() / 1000 - 3600;
    await hub.store.telemetry.addEvent({
      uid: "00000000-0000-4000-8000-0000000000aa",
      projectUid: hub.projectUid,
      deviceUid: device,
      sessionUid: null,
      file: "data.qo",
      received: now,
      whenSec: now,
      data: { sn: "sn-1", best_id: "sn-1", body: { t: 1 } },
    });
    const deep = `${'{"a":'.repeat(150)}1${"}".repeat(150)}`;
    for (const [uid, data] of [
      [DAMAGED, "{not json"],
      [DEEP, deep],
      [SCALAR, "[1,2]"],
    ]) {
      hub.rawSql(
        `INSERT INTO events (uid, project_uid, project_key, device_uid, session_uid, file, received, captured, billable, data)
         VALUES (?, ?, (SELECT key FROM project_keys WHERE uid = ?), ?, NULL, 'data.qo', ?, ?, 1, ?)`,
        uid,
        hub.projectUid,
        hub.projectUid,
        device,
        now + 1,
        now + 1,
        data,
      );
      hub.rawSql(
        `INSERT INTO sessions (uid, device_uid, project_uid, began, ended, first_sync, data)
         VALUES (?, ?, ?, ?, NULL, 0, ?)`,
        uid,
        device,
        hub.projectUid,
        Math.floor(now),
        data,
      );
    }
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("lists, filters, sorts, selects and writes as CSV every event, damaged ones as _unreadable", async () => {
    for (const query of [
      "",
      "serialNumber=sn-1",
      `fleetUID=${fleet}`,
      "sortBy=best_id",
      "sortBy=best_location&sortOrder=desc",
      "selectFields=body.t,sn",
      "dateType=uploaded&startDate=0",
    ]) {
      const res = await hub.get(hub.p(`/events?${query}`));
      expect(res.status, `${query}: ${res.text}`).toBe(200);
    }
    const all = await hub.get(hub.p("/events"));
    const damaged = all.json.events.find((e: { event: string }) => e.event === DAMAGED);
    expect(damaged).toMatchObject({ _unreadable: expect.stringMatching(/damaged/), device, file: "data.qo" });
    expect(all.json.events.find((e: { event: string }) => e.event === DEEP)._unreadable).toMatch(/nested/);
    // Damaged rows have no serial number, and are in the device's fleets (they record none).
    expect((await hub.get(hub.p("/events?serialNumber=sn-1"))).json.events).toHaveLength(1);
    expect((await hub.get(hub.p(`/events?fleetUID=${fleet}`))).json.events).toHaveLength(4);
    const csv = parseCsv((await hub.get(hub.p("/events?format=csv&selectFields=eventUID,body.t"))).text);
    expect(csv).toHaveLength(5);
    const cursor = await hub.get(hub.p(`/events-cursor?fleetUID=${fleet}&cursor=${DAMAGED}`));
    expect(cursor.json.events.map((e: { event: string }) => e.event)).toEqual([DAMAGED, DEEP, SCALAR]);
    expect((await hub.get(hub.p(`/events/${DAMAGED}/route-logs`))).json).toEqual([]);
  });

  it("counts damaged rows in usage (no bytes, no transport: cellular) and lists damaged sessions", async () => {
    for (const what of ["data", "events", "sessions"]) {
      for (const aggregate of ["device", "fleet", "project"]) {
        const res = await hub.get(hub.p(`/usage/${what}?period=day&aggregate=${aggregate}`));
        expect(res.status, `${what} ${aggregate}: ${res.text}`).toBe(200);
      }
    }
    const sessions = await hub.get(hub.p("/usage/sessions?period=day&aggregate=fleet"));
    expect(sessions.json.sessions).toEqual([expect.objectContaining({ fleet, sessions: 3, total_bytes: 0 })]);
    const events = await hub.get(hub.p("/usage/events?period=day&aggregate=project"));
    expect(events.json.data[0]).toMatchObject({ total_events: 4, billable_events: 4 });
    const listed = await hub.get(hub.p(`/devices/${device}/sessions`));
    expect(listed.status).toBe(200);
    expect(listed.json.sessions).toHaveLength(3);
  });
});
