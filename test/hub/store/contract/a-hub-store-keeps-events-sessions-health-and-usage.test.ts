import { afterEach, beforeEach, expect, it } from "vitest";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import { newFleet, type UsageQuery } from "../../../../hub/store/records.js";
import { describeEachBackend } from "./support/backends.js";
import { anEvent, ORG, OTHER_PROJECT, PROJECT, putDevice, seedProject, T0 } from "./support/seed.js";

const S0 = T0 / 1000;
const DAY = 86_400;

describeEachBackend("a hub store's events, sessions, health log and usage", (backend) => {
  let store: HubStore;
  const telemetry = () => store.telemetry;

  beforeEach(async () => {
    store = await backend.open();
    await seedProject(store);
    await store.projects.createFleet(
      newFleet({ uid: "fleet:a", projectUid: PROJECT, label: "A", created: T0 }),
    );
    await putDevice(store, 1, { fleetUids: ["fleet:a"] });
    await putDevice(store, 2);
  });
  afterEach(() => backend.dispose(store));

  it("stores an event once, a batch all or none, and reads events only in their project", async () => {
    expect(await telemetry().addEvent(anEvent("e1"))).toBe(true);
    expect(await telemetry().addEvent(anEvent("e1", { data: { n: 2 } }))).toBe(false);
    expect(await telemetry().addEvents([anEvent("e2"), anEvent("e1"), anEvent("e3"), anEvent("e2")])).toEqual(
      [true, false, true, false],
    );
    expect((await telemetry().getEvent(PROJECT, "e1"))?.data).toEqual({ n: 1 });
    expect(await telemetry().getEvent(OTHER_PROJECT, "e1")).toBeUndefined();
    // The text a maker wrote is the text kept.
    await telemetry().addEvent({ ...anEvent("e4"), dataText: '{"b":2,"a":1}' });
    expect((await telemetry().getEvent(PROJECT, "e4"))?.data).toEqual({ b: 2, a: 1 });
    await expect(
      telemetry().addEvents([anEvent("e5"), { ...anEvent("e6"), projectUid: null as never }]),
    ).rejects.toThrow();
    expect(await telemetry().getEvent(PROJECT, "e5")).toBeUndefined();
  });

  it("lists events by every order with ties in storing order, filtered, in pages", async () => {
    await telemetry().addEvents([
      anEvent("e1", { whenSec: S0 + 30, received: S0 + 1, data: { sn: "b" } }),
      anEvent("e2", {
        whenSec: S0 + 10,
        received: S0 + 2,
        deviceUid: "dev:2",
        file: "_session.qo",
        data: { sn: "a" },
      }),
      anEvent("e3", { whenSec: S0 + 10, received: S0 + 2, data: { sn: "c", fleets: ["fleet:b"] } }),
    ]);
    const list = (filter: object, by = "captured", descending = false, offset = 0, limit = 10) =>
      telemetry()
        .listEvents(PROJECT, filter, { by: by as never, descending }, { offset, limit })
        .then((p) => [p.items.map((e) => e.uid), p.hasMore]);
    expect(await list({})).toEqual([["e2", "e3", "e1"], false]);
    expect(await list({}, "captured", true)).toEqual([["e1", "e3", "e2"], false]);
    expect(await list({}, "device_serial")).toEqual([["e2", "e1", "e3"], false]);
    expect(await list({}, "modified", false, 1, 1)).toEqual([["e2"], true]);
    expect(await list({ deviceUids: ["dev:1"] })).toEqual([["e3", "e1"], false]);
    expect(await list({ serialNumbers: ["a", "c"] })).toEqual([["e2", "e3"], false]);
    expect(await list({ systemFilesOnly: true })).toEqual([["e2"], false]);
    // A record listing its fleets is in those; one listing none is in its device's.
    expect(await list({ fleetUids: ["fleet:a"] })).toEqual([["e1"], false]);
    expect(await list({ fromSec: S0 + 2, toSec: S0 + 3, dateType: "received" })).toEqual([
      ["e2", "e3"],
      false,
    ]);
    expect(await list({ eventUids: ["e1"], files: ["data.qo"] })).toEqual([["e1"], false]);
  });

  it("pages through events in storing order with a cursor, both ways, and ignores an unknown one", async () => {
    for (let n = 1; n <= 5; n++) await telemetry().addEvent(anEvent(`e${n}`, { received: S0 + 10 - n }));
    const first = await telemetry().eventsFromCursor(
      PROJECT,
      {},
      { cursor: null, descending: false, limit: 2 },
    );
    expect([first.items.map((e) => e.uid), first.next]).toEqual([["e1", "e2"], "e3"]);
    const next = await telemetry().eventsFromCursor(
      PROJECT,
      {},
      { cursor: first.next, descending: false, limit: 5 },
    );
    expect([next.items.map((e) => e.uid), next.next]).toEqual([["e3", "e4", "e5"], null]);
    const back = await telemetry().eventsFromCursor(
      PROJECT,
      {},
      { cursor: "e3", descending: true, limit: 2 },
    );
    expect([back.items.map((e) => e.uid), back.next]).toEqual([["e3", "e2"], "e1"]);
    const unknown = await telemetry().eventsFromCursor(
      PROJECT,
      {},
      { cursor: "zz", descending: true, limit: 1 },
    );
    expect(unknown.items.map((e) => e.uid)).toEqual(["e5"]);
  });

  it("finds each notefile's latest event of a device and counts billable events per day", async () => {
    await telemetry().addEvents([
      anEvent("a1", { received: S0 + 1 }),
      anEvent("a2", { received: S0 + 5 }),
      anEvent("b1", { received: S0 + 3, file: "_health.qo" }),
      anEvent("c1", { received: S0 + DAY + 1 }),
    ]);
    expect((await telemetry().latestEvents(PROJECT, "dev:1")).map((e) => e.uid)).toEqual(["c1", "b1"]);
    const days = await telemetry().billableEventsByDay(ORG, T0, T0 + 2 * DAY * 1000);
    expect([...days.entries()].sort()).toEqual([
      [T0, 2],
      [T0 + DAY * 1000, 1],
    ]);
    // Of the events of a notefile received last together, the greatest UID; another device's
    // events and the same device's in another project are not its.
    await telemetry().addEvents([
      anEvent("x2", { deviceUid: "dev:2", received: S0 + 9 }),
      anEvent("x3", { deviceUid: "dev:2", received: S0 + 9 }),
      anEvent("x1", { deviceUid: "dev:2", received: S0 + 9 }),
      anEvent("x0", { deviceUid: "dev:2", received: S0 + 2 }),
      anEvent("y1", { deviceUid: "dev:2", received: S0 + 9, file: "_session.qo" }),
      anEvent("y2", { deviceUid: "dev:2", received: S0 + 4, file: "_session.qo" }),
      anEvent("z1", { deviceUid: "dev:2", received: S0 + 99, projectUid: OTHER_PROJECT }),
    ]);
    expect((await telemetry().latestEvents(PROJECT, "dev:2")).map((e) => e.uid)).toEqual(["x3", "y1"]);
    expect((await telemetry().latestEvents(OTHER_PROJECT, "dev:2")).map((e) => e.uid)).toEqual(["z1"]);
    expect(await telemetry().latestEvents(PROJECT, "dev:3")).toEqual([]);
  });

  it("keeps sessions (a later copy takes its end) and the health log, filtered and newest first", async () => {
    const session = (uid: string, began: number, firstSync: boolean, data: object) => ({
      uid,
      deviceUid: "dev:1",
      projectUid: PROJECT,
      beganSec: began,
      endedSec: null,
      firstSync,
      data: data as never,
    });
    await telemetry().addSession(session("s1", S0, true, { n: 1 }));
    await telemetry().addSession(session("s2", S0 + 10, false, { n: 2 }));
    await telemetry().addSession({ ...session("s1", S0, true, { n: 3 }), endedSec: S0 + 5 });
    const page = await telemetry().listSessions(
      PROJECT,
      "dev:1",
      { firstSyncOnly: false },
      { offset: 0, limit: 1 },
    );
    expect([page.items.map((s) => s.uid), page.hasMore]).toEqual([["s2"], true]);
    const first = await telemetry().listSessions(
      PROJECT,
      "dev:1",
      { firstSyncOnly: true },
      { offset: 0, limit: 5 },
    );
    expect(first.items).toEqual([{ ...session("s1", S0, true, { n: 3 }), endedSec: S0 + 5 }]);
    expect(
      (
        await telemetry().listSessions(
          PROJECT,
          "dev:1",
          { startSec: S0 + 1, firstSyncOnly: false },
          { offset: 0, limit: 5 },
        )
      ).items.length,
    ).toBe(1);
    for (const [when, type] of [
      [S0, "boot"],
      [S0 + 1, "dfu_completed"],
      [S0 + 2, "boot"],
    ] as const) {
      await telemetry().addHealthLog({
        projectUid: PROJECT,
        deviceUid: "dev:1",
        whenSec: when,
        alert: false,
        text: type,
        type,
      });
    }
    expect((await telemetry().listHealthLog(PROJECT, "dev:1", {})).map((h) => h.whenSec)).toEqual([
      S0 + 2,
      S0 + 1,
      S0,
    ]);
    expect(
      (await telemetry().listHealthLog(PROJECT, "dev:1", { types: ["boot"], endSec: S0 + 1 })).length,
    ).toBe(1);
    expect(await telemetry().listHealthLog(OTHER_PROJECT, "dev:1", {})).toEqual([]);
  });

  it("counts usage per period and key from events, sessions and the health log", async () => {
    await telemetry().addEvents([
      anEvent("e1", { received: S0 + 1 }),
      anEvent("e2", { received: S0 + DAY + 1 }),
      anEvent("e3", { received: S0 + 2, file: "_session.qo", deviceUid: "dev:2" }),
      anEvent("e4", { received: S0 + 3, data: "broken" as never, dataText: "{not json" }),
    ]);
    const q = (extra: Partial<UsageQuery>): UsageQuery => ({
      period: "day",
      aggregate: "device",
      fromSec: S0,
      toSec: S0 + 7 * DAY,
      ...extra,
    });
    const events = await telemetry().eventUsage(PROJECT, q({}));
    const sorted = events.map((r) => [r.key, r.periodSec, r.file, r.billable, r.events]).sort();
    expect(sorted).toEqual([
      ["dev:1", S0, "data.qo", true, 2],
      ["dev:1", S0 + DAY, "data.qo", true, 1],
      ["dev:2", S0, "_session.qo", false, 1],
    ]);
    const byFleet = await telemetry().eventUsage(PROJECT, q({ aggregate: "fleet", period: "month" }));
    expect(byFleet.map((r) => [r.key, r.periodSec, r.events])).toEqual([["fleet:a", S0, 3]]);
    const week = await telemetry().eventUsage(
      PROJECT,
      q({ aggregate: "project", period: "week", files: ["_session.qo"] }),
    );
    // 2026-01-01 was a Thursday: its week began on Monday 2025-12-29.
    expect(week.map((r) => [r.key, r.periodSec, r.events])).toEqual([["", S0 - 3 * DAY, 1]]);
    await telemetry().addSession({
      uid: "s1",
      deviceUid: "dev:1",
      projectUid: PROJECT,
      beganSec: S0 + 5,
      endedSec: null,
      firstSync: true,
      data: { transport: "wifi:home", iccid: "8901", tls: 1, period: { bytes_sent: 10, bytes_rcvd: 4.7 } },
    });
    await telemetry().addSession({
      uid: "s2",
      deviceUid: "dev:1",
      projectUid: PROJECT,
      beganSec: S0 + 6,
      endedSec: null,
      firstSync: false,
      data: { rat: "LoRa", period: { bytes_sent: "many" } },
    });
    const sessions = await telemetry().sessionUsage(PROJECT, q({}));
    expect(
      sessions
        .map((r) => [
          r.transport,
          r.iccid,
          r.sessions,
          r.firstSyncSessions,
          r.tlsSessions,
          r.bytesSent,
          r.bytesReceived,
        ])
        .sort(),
    ).toEqual([
      ["lorawan", "", 1, 0, 0, 0, 0],
      ["wifi", "8901", 1, 1, 1, 10, 4],
    ]);
    await telemetry().addHealthLog({
      projectUid: PROJECT,
      deviceUid: "dev:1",
      whenSec: S0 + 1,
      alert: false,
      text: "",
      type: "boot",
    });
    await telemetry().addHealthLog({
      projectUid: PROJECT,
      deviceUid: "dev:1",
      whenSec: S0 + 2,
      alert: false,
      text: "",
      type: "dfu_completed",
    });
    await telemetry().addHealthLog({
      projectUid: PROJECT,
      deviceUid: "dev:1",
      whenSec: S0 + 3,
      alert: false,
      text: "",
      type: "other",
    });
    const health = await telemetry().healthUsage(PROJECT, q({ aggregate: "fleet", fleetUids: ["fleet:a"] }));
    expect(health.map((r) => [r.key, r.deviceUid, r.boots, r.firmwareUpdates])).toEqual([
      ["fleet:a", "dev:1", 1, 1],
    ]);
  });
});
