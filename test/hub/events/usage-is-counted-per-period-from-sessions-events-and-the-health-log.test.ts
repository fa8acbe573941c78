import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FleetRecord } from "../../../hub/store/records.js";
import { expectErrorBody, TestHub } from "../support/hubFixture.js";

/** Epoch seconds of an ISO time (UTC). */
const at = (iso: string): number => Date.parse(`${iso}Z`) / 1000;
/** The period as the API writes it. */
const day = (date: string): string => `${date}T00:00:00Z`;

/**
 * The Usage API over a small project whose every count is worked out by hand below: three
 * devices (D1 in fleet A, D2 in A and B, D3 in none), six sessions in late 2025 (the hub's clock
 * stands at 2026-01-01, "now"), nine events and a health log.
 */
describe("the Usage API", () => {
  let hub: TestHub;
  let d1: string;
  let d2: string;
  let d3: string;
  let fleetA: FleetRecord;
  let fleetB: FleetRecord;

  const fleet = async (label: string): Promise<FleetRecord> => {
    const f: FleetRecord = {
      uid: hub.ids.fleetUid(),
      projectUid: hub.projectUid,
      label,
      created: hub.clock.now(),
      smartRule: null,
      smartRuleEnabled: false,
      watchdogMins: 0,
      connectivityAssurance: null,
    };
    await hub.store.projects.createFleet(f);
    return f;
  };

  beforeAll(async () => {
    hub = await TestHub.start();
    fleetA = await fleet("A");
    fleetB = await fleet("B");
    d1 = (await hub.device({ fleetUids: [fleetA.uid] })).uid;
    d2 = (await hub.device({ fleetUids: [fleetA.uid, fleetB.uid] })).uid;
    d3 = (await hub.device()).uid;
    const t = hub.store.telemetry;
    const session = (device: string, began: string, data: Record<string, unknown>, firstSync = false) =>
      t.addSession({
        uid: hub.ids.uuid(),
        deviceUid: device,
        projectUid: hub.projectUid,
        beganSec: at(began),
        endedSec: at(began) + 120,
        firstSync,
        data,
      });
    const period = (sent: number, rcvd: number) => ({
      since: 0,
      duration: 60,
      bytes_sent: sent,
      bytes_rcvd: rcvd,
    });
    await session(
      d1,
      "2025-12-01T10:00:00",
      { transport: "cell:lte:fdd", iccid: "8901", tls: true, period: period(1000, 200) },
      true,
    );
    await session(d1, "2025-12-02T11:00:00", {
      rat: "lte",
      iccid: "8901",
      tls: false,
      period: period(500, 100),
    });
    await session(d1, "2025-12-08T09:00:00", {
      transport: "cell",
      iccid: "8902",
      tls: true,
      period: period(300, 30),
    });
    await session(d2, "2025-12-01T12:00:00", { transport: "wifi:home", tls: true, period: period(700, 70) });
    await session(d2, "2025-11-28T08:00:00", { transport: "ntn:skylo", period: period(50, 5) });
    // D3 is in no fleet now, but was in fleet B when this session was recorded.
    await session(d3, "2025-12-02T13:00:00", { rat: "lte", fleets: [fleetB.uid], period: period(10, 1) });
    // Another project's session, and one of ours after "now": neither counts by default.
    await t.addSession({
      uid: hub.ids.uuid(),
      deviceUid: d1,
      projectUid: hub.otherProjectUid,
      beganSec: at("2025-12-01T10:00:00"),
      endedSec: null,
      firstSync: false,
      data: { period: period(9999, 9999) },
    });
    await session(d1, "2026-01-02T00:00:00", { transport: "cell", iccid: "8901", period: period(1, 1) });

    const event = (device: string, file: string, received: string, project = hub.projectUid) =>
      t.addEvent({
        uid: hub.ids.uuid(),
        projectUid: project,
        deviceUid: device,
        sessionUid: null,
        file,
        received: at(received) + 0.5,
        whenSec: at("2025-01-01T00:00:00"),
        data: { req: "note.add" },
      });
    for (const m of ["00", "01", "02"]) await event(d1, "data.qo", `2025-12-01T09:${m}:00`);
    await event(d1, "_session.qo", "2025-12-01T10:00:00");
    await event(d1, "_watchdog.qo", "2025-12-02T10:00:00");
    await event(d2, "sensors.qo", "2025-12-03T08:00:00");
    await event(d2, "sensors.qo", "2025-12-03T08:30:00");
    await event(d2, "_health.qo", "2025-12-03T09:00:00");
    await event(d3, "data.qo", "2025-12-08T10:00:00");
    await event(d1, "data.qo", "2025-12-01T09:00:00", hub.otherProjectUid);
    await event(d1, "data.qo", "2026-01-05T00:00:00");
    const health = (device: string, when: string, type: string) =>
      t.addHealthLog({
        projectUid: hub.projectUid,
        deviceUid: device,
        whenSec: at(when),
        alert: false,
        text: type,
        type,
      });
    await health(d1, "2025-12-01T09:30:00", "boot");
    await health(d2, "2025-12-03T07:00:00", "dfu_completed");
    await health(d2, "2025-12-03T07:05:00", "boot");
    await health(d3, "2025-12-08T00:00:00", "other");
    await health(d3, "2025-11-20T00:00:00", "boot");
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const usage = async (what: string, query: string) => {
    const res = await hub.get(hub.p(`/usage/${what}?${query}`), { as: "viewer" });
    expect(res.status, res.text).toBe(200);
    return res.json;
  };
  const byFleetUid = <T>(entries: [string, T][]): T[] =>
    entries.sort(([a], [b]) => (a < b ? -1 : 1)).map(([, e]) => e);

  describe("data usage: bytes of cellular and satellite sessions", () => {
    it("per device and SIM, per day; Wi-Fi sessions carry no metered data", async () => {
      expect(await usage("data", "period=day")).toEqual({
        data: [
          {
            type: "cellular",
            device: d1,
            iccid: "8901",
            device_count: 1,
            data: [
              { period: day("2025-12-01"), total_bytes: 1200, uplink_bytes: 1000, downlink_bytes: 200 },
              { period: day("2025-12-02"), total_bytes: 600, uplink_bytes: 500, downlink_bytes: 100 },
            ],
          },
          {
            type: "cellular",
            device: d1,
            iccid: "8902",
            device_count: 1,
            data: [{ period: day("2025-12-08"), total_bytes: 330, uplink_bytes: 300, downlink_bytes: 30 }],
          },
          {
            type: "satellite",
            device: d2,
            device_count: 1,
            data: [{ period: day("2025-11-28"), total_bytes: 55, uplink_bytes: 50, downlink_bytes: 5 }],
          },
          {
            type: "cellular",
            device: d3,
            device_count: 1,
            data: [{ period: day("2025-12-02"), total_bytes: 11, uplink_bytes: 10, downlink_bytes: 1 }],
          },
        ],
        truncated: false,
      });
    });

    it("per fleet (the fleets a session was recorded in, else its device's), per week from Monday", async () => {
      const result = await usage("data", "period=week&aggregate=fleet");
      expect(result.truncated).toBe(false);
      const point = (date: string, up: number, down: number) => ({
        period: day(date),
        total_bytes: up + down,
        uplink_bytes: up,
        downlink_bytes: down,
      });
      expect(result.data).toEqual(
        byFleetUid([
          [
            fleetA.uid,
            [
              {
                type: "cellular",
                fleet: fleetA.uid,
                device_count: 1,
                data: [point("2025-12-01", 1500, 300), point("2025-12-08", 300, 30)],
              },
              { type: "satellite", fleet: fleetA.uid, device_count: 1, data: [point("2025-11-24", 50, 5)] },
            ],
          ],
          [
            fleetB.uid,
            [
              { type: "cellular", fleet: fleetB.uid, device_count: 1, data: [point("2025-12-01", 10, 1)] },
              { type: "satellite", fleet: fleetB.uid, device_count: 1, data: [point("2025-11-24", 50, 5)] },
            ],
          ],
        ]).flat(),
      );
    });

    it("for the project, per month; with dates, devices and fleets as filters", async () => {
      expect(await usage("data", "period=month&aggregate=project")).toEqual({
        data: [
          {
            type: "cellular",
            device_count: 2,
            data: [{ period: day("2025-12-01"), total_bytes: 2141, uplink_bytes: 1810, downlink_bytes: 331 }],
          },
          {
            type: "satellite",
            device_count: 1,
            data: [{ period: day("2025-11-01"), total_bytes: 55, uplink_bytes: 50, downlink_bytes: 5 }],
          },
        ],
        truncated: false,
      });
      const dates = `startDate=${at("2025-12-02T00:00:00")}&endDate=${at("2025-12-02T23:59:59")}`;
      const one = await usage("data", `period=day&aggregate=project&${dates}`);
      expect(one.data).toEqual([
        {
          type: "cellular",
          device_count: 2,
          data: [{ period: day("2025-12-02"), total_bytes: 611, uplink_bytes: 510, downlink_bytes: 101 }],
        },
      ]);
      const mine = await usage("data", `period=month&deviceUID=${d3}&deviceUID=${d2}`);
      expect(mine.data.map((e: { device: string; type: string }) => [e.device, e.type])).toEqual([
        [d2, "satellite"],
        [d3, "cellular"],
      ]);
      const inB = await usage("data", `period=month&fleetUID=${fleetB.uid}&aggregate=project`);
      expect(inB.data.map((e: { device_count: number; type: string }) => [e.type, e.device_count])).toEqual([
        ["cellular", 1],
        ["satellite", 1],
      ]);
      // Sessions after "now" count once the range reaches them (endDate 0 is now).
      const later = await usage(
        "data",
        `period=month&aggregate=project&endDate=${at("2026-02-01T00:00:00")}`,
      );
      expect(later.data[0].data).toHaveLength(2);
      expect(await usage("data", "period=month&aggregate=project&endDate=0")).toEqual(
        await usage("data", "period=month&aggregate=project"),
      );
    });

    it("keeps the first `limit` points by period and says it truncated", async () => {
      const result = await usage("data", "period=day&limit=3");
      expect(result.truncated).toBe(true);
      expect(
        result.data.map((e: { device: string; iccid?: string; data: { period: string }[] }) => [
          e.device,
          e.iccid,
          e.data.map((p) => p.period),
        ]),
      ).toEqual([
        [d1, "8901", [day("2025-12-01"), day("2025-12-02")]],
        [d2, undefined, [day("2025-11-28")]],
      ]);
      expect((await usage("data", "period=day&limit=5")).truncated).toBe(false);
    });
  });

  describe("sessions usage", () => {
    it("per device and day: sessions, first syncs, TLS ones, bytes and transports", async () => {
      const point = (
        device: string,
        date: string,
        counts: [number, number, number, number],
        transports: Record<string, number>,
      ) => ({
        device,
        period: day(date),
        sessions: counts[0],
        first_sync_sessions: counts[1],
        tls_sessions: counts[2],
        total_bytes: counts[3],
        total_devices: 1,
        sessions_by_transport: transports,
      });
      expect(await usage("sessions", "period=day")).toEqual({
        sessions: [
          point(d2, "2025-11-28", [1, 0, 0, 55], { ntn: 1 }),
          point(d1, "2025-12-01", [1, 1, 1, 1200], { cell: 1 }),
          point(d2, "2025-12-01", [1, 0, 1, 770], { wifi: 1 }),
          point(d1, "2025-12-02", [1, 0, 0, 600], { cell: 1 }),
          point(d3, "2025-12-02", [1, 0, 0, 11], { cell: 1 }),
          point(d1, "2025-12-08", [1, 0, 1, 330], { cell: 1 }),
        ],
        truncated: false,
      });
    });

    it("for the project per week, per fleet, filtered, and cut at `limit`", async () => {
      expect(await usage("sessions", "period=week&aggregate=project")).toEqual({
        sessions: [
          {
            period: day("2025-11-24"),
            sessions: 1,
            first_sync_sessions: 0,
            tls_sessions: 0,
            total_bytes: 55,
            total_devices: 1,
            sessions_by_transport: { ntn: 1 },
          },
          {
            period: day("2025-12-01"),
            sessions: 4,
            first_sync_sessions: 1,
            tls_sessions: 2,
            total_bytes: 2581,
            total_devices: 3,
            sessions_by_transport: { cell: 3, wifi: 1 },
          },
          {
            period: day("2025-12-08"),
            sessions: 1,
            first_sync_sessions: 0,
            tls_sessions: 1,
            total_bytes: 330,
            total_devices: 1,
            sessions_by_transport: { cell: 1 },
          },
        ],
        truncated: false,
      });
      const fleets = await usage("sessions", "period=month&aggregate=fleet");
      const counts = fleets.sessions.map((p: { fleet: string; period: string; sessions: number }) => [
        p.fleet === fleetA.uid ? "A" : "B",
        p.period,
        p.sessions,
      ]);
      expect(counts.sort()).toEqual(
        [
          ["A", day("2025-11-01"), 1],
          ["A", day("2025-12-01"), 4],
          ["B", day("2025-11-01"), 1],
          ["B", day("2025-12-01"), 2],
        ].sort(),
      );
      const inB = await usage("sessions", `period=month&fleetUID=${fleetB.uid}`);
      expect(inB.sessions.map((p: { device: string; sessions: number }) => [p.device, p.sessions])).toEqual([
        [d2, 1],
        [d2, 1],
        [d3, 1],
      ]);
      const onlyB = await usage("sessions", `period=month&aggregate=fleet&fleetUID=${fleetB.uid}`);
      expect(onlyB.sessions.every((p: { fleet: string }) => p.fleet === fleetB.uid)).toBe(true);
      const cut = await usage("sessions", "period=day&limit=1&skipRecentData=true");
      expect(cut).toEqual({
        sessions: [expect.objectContaining({ device: d2, period: day("2025-11-28") })],
        truncated: true,
      });
    });
  });

  describe("events usage", () => {
    const point = (fields: Record<string, unknown>) => ({
      total_events: 0,
      billable_events: 0,
      platform_events: 0,
      watchdog_events: 0,
      total_devices: 1,
      total_reboots: 0,
      total_fw_updates: 0,
      total_days_in_period: 1,
      ...fields,
    });

    it("per device and day: billable, platform and watchdog events, notefiles, boots and firmware updates", async () => {
      expect(await usage("events", "period=day&includeNotefiles=true")).toEqual({
        data: [
          point({ device: d3, period: day("2025-11-20"), total_reboots: 1, notefiles: {} }),
          point({
            device: d1,
            period: day("2025-12-01"),
            total_events: 4,
            billable_events: 3,
            platform_events: 1,
            total_reboots: 1,
            notefiles: { "_session.qo": 1, "data.qo": 3 },
          }),
          point({
            device: d1,
            period: day("2025-12-02"),
            total_events: 1,
            billable_events: 1,
            watchdog_events: 1,
            notefiles: { "_watchdog.qo": 1 },
          }),
          point({
            device: d2,
            period: day("2025-12-03"),
            total_events: 3,
            billable_events: 2,
            platform_events: 1,
            total_reboots: 1,
            total_fw_updates: 1,
            notefiles: { "_health.qo": 1, "sensors.qo": 2 },
          }),
          point({
            device: d3,
            period: day("2025-12-08"),
            total_events: 1,
            billable_events: 1,
            notefiles: { "data.qo": 1 },
          }),
        ],
        truncated: false,
      });
    });

    it("for the project per month, per fleet with per-notefile counts (aggregate=fleet&aggregate=datafile)", async () => {
      expect(await usage("events", "period=month&aggregate=project")).toEqual({
        data: [
          point({ period: day("2025-11-01"), total_reboots: 1, total_days_in_period: 30 }),
          point({
            period: day("2025-12-01"),
            total_events: 9,
            billable_events: 7,
            platform_events: 2,
            watchdog_events: 1,
            total_devices: 3,
            total_reboots: 2,
            total_fw_updates: 1,
            total_days_in_period: 31,
          }),
        ],
        truncated: false,
      });
      const fleets = await usage("events", "period=week&aggregate=fleet&aggregate=datafile");
      expect(fleets.data).toEqual(
        byFleetUid([
          [
            fleetA.uid,
            point({
              fleet: fleetA.uid,
              period: day("2025-12-01"),
              total_events: 8,
              billable_events: 6,
              platform_events: 2,
              watchdog_events: 1,
              total_devices: 2,
              total_reboots: 2,
              total_fw_updates: 1,
              total_days_in_period: 7,
              notefiles: {
                "_health.qo": 1,
                "_session.qo": 1,
                "_watchdog.qo": 1,
                "data.qo": 3,
                "sensors.qo": 2,
              },
            }),
          ],
          [
            fleetB.uid,
            point({
              fleet: fleetB.uid,
              period: day("2025-12-01"),
              total_events: 3,
              billable_events: 2,
              platform_events: 1,
              total_reboots: 1,
              total_fw_updates: 1,
              total_days_in_period: 7,
              notefiles: { "_health.qo": 1, "sensors.qo": 2 },
            }),
          ],
        ]),
      );
    });

    it("filters by notefile (the health log's counts stay), device and dates; cuts at `limit`", async () => {
      const files = await usage(
        "events",
        "period=month&aggregate=project&notefile=data.qo&notefile=sensors.qo",
      );
      expect(files.data[1]).toMatchObject({ total_events: 6, total_reboots: 2, total_devices: 3 });
      const device = await usage("events", `period=month&deviceUID=${d2}`);
      expect(device.data).toEqual([
        point({
          device: d2,
          period: day("2025-12-01"),
          total_events: 3,
          billable_events: 2,
          platform_events: 1,
          total_reboots: 1,
          total_fw_updates: 1,
          total_days_in_period: 31,
        }),
      ]);
      const range = `startDate=${at("2025-12-03T00:00:00")}&endDate=${at("2025-12-31T00:00:00")}`;
      const dated = await usage("events", `period=month&aggregate=project&${range}`);
      expect(dated.data).toEqual([
        point({
          period: day("2025-12-01"),
          total_events: 4,
          billable_events: 3,
          platform_events: 1,
          total_devices: 2,
          total_reboots: 1,
          total_fw_updates: 1,
          total_days_in_period: 31,
        }),
      ]);
      const cut = await usage("events", "period=day&limit=2");
      expect(cut.truncated).toBe(true);
      expect(cut.data.map((p: { device: string; period: string }) => [p.device, p.period])).toEqual([
        [d3, day("2025-11-20")],
        [d1, day("2025-12-01")],
      ]);
    });
  });

  it("answers route-log usage empty (no routes yet), in the definition's shape", async () => {
    expect(await usage("route-logs", "period=day")).toEqual({ route_logs: [], truncated: false });
    expect(await usage("route-logs", "period=week&aggregate=route&routeUID=route:1")).toEqual({
      route_logs: [],
      truncated: false,
    });
  });

  it("refuses a missing or bad period, aggregate, limit or dates with 400", async () => {
    const bad: [string, string][] = [
      ["data", ""],
      ["data", "period=year"],
      ["data", "period=day&aggregate=devices"],
      ["data", "period=day&limit=0"],
      ["sessions", "period=day&limit=400001"],
      ["sessions", "period=day&startDate=-1"],
      ["sessions", `period=day&startDate=${at("2025-12-02T00:00:00")}&endDate=${at("2025-12-01T00:00:00")}`],
      ["sessions", "period=day&skipRecentData=perhaps"],
      ["events", "period=day&aggregate=device&aggregate=fleet"],
      ["events", "period=day&aggregate=everything"],
      ["events", "period=day&includeNotefiles=2"],
      ["route-logs", "period=day&aggregate=device"],
      ["route-logs", ""],
    ];
    for (const [what, query] of bad) expectErrorBody(await hub.get(hub.p(`/usage/${what}?${query}`)), 400);
    expectErrorBody(await hub.get(hub.p("/usage/data?period=day"), { as: "outsider" }), 403);
  });
});
