import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DeviceRecord } from "../../../hub/store/records.js";
import { expectErrorBody, TestHub } from "../support/hubFixture.js";
import { CONTRACT_SKIP_MESSAGE, OpenApiContract } from "../support/OpenApiContract.js";
import { stepClock } from "./support/routingFixture.js";
import { HttpEndpoint } from "./support/servers.js";

if (!OpenApiContract.load()) console.warn(CONTRACT_SKIP_MESSAGE);

interface Log {
  date: string;
  duration: number;
  route_uid: string;
  event_uid: string;
  attn: boolean;
  status: string;
  text?: string;
  url: string;
  source: string;
  routeUID: string;
  eventUID: string;
}

/**
 * Events recorded through the API (note adds) are routed on the hub's fake clock; their logs are
 * read through GET /routes/{R}/route-logs (every filter), GET /events/{E}/route-logs and
 * GET /usage/route-logs, each answer checked against the OpenAPI definition.
 */
describe("route logs through the API", () => {
  let hub: TestHub;
  let endpoint: HttpEndpoint;
  let good: string;
  let failing: string;
  let a: DeviceRecord;
  let b: DeviceRecord;
  const events: { uid: string; device: string; file: string }[] = [];
  let start: number;

  /** Adds a note (an event) through the API; returns its event UID. */
  async function note(device: DeviceRecord, file: string, body: Record<string, unknown>): Promise<string> {
    const res = await hub.post(hub.p(`/devices/${device.uid}/notes/${file}`), { body });
    expect(res.status).toBe(200);
    const [latest] = await hub.store.telemetry.latestEvents(hub.projectUid, device.uid);
    events.push({ uid: latest!.uid, device: device.uid, file });
    return latest!.uid;
  }

  const logs = async (route: string, query = "", as = "developer"): Promise<Log[]> => {
    const res = await hub.get(hub.p(`/routes/${route}/route-logs${query}`), { as });
    expect(res.status, res.text).toBe(200);
    return res.json as Log[];
  };

  beforeAll(async () => {
    hub = await TestHub.start();
    endpoint = await HttpEndpoint.start();
    endpoint.handler = (req, res) => {
      res.statusCode = req.url === "/fail" ? 500 : 200;
      res.end(req.url === "/fail" ? "down" : "fine");
    };
    a = await hub.device();
    b = await hub.device();
    start = hub.clock.now();
    good = (
      await hub.post(hub.p("/routes"), {
        label: "good",
        type: "http",
        http: { url: `${endpoint.url}/ok`, filter: { type: "all", system_notefiles: true } },
      })
    ).json.uid;
    failing = (
      await hub.post(hub.p("/routes"), {
        label: "failing",
        type: "http",
        http: { url: `${endpoint.url}/fail` },
      })
    ).json.uid;
    // Each note's deliveries end before the clock moves on (their duration on the hub clock is 0).
    await note(a, "data.qi", { n: 1 });
    await hub.services.routing.settle();
    await hub.clock.advance(1000);
    await note(b, "data.qi", { n: 2 });
    await hub.services.routing.settle();
    await hub.clock.advance(1000);
    await note(a, "other.qi", { n: 3 });
    await hub.services.routing.settle();
    await hub.clock.advance(1000);
    await note(b, "_req.qis", { n: 4 });
    await hub.services.routing.settle();
    // The failing route's events are retried through the whole schedule.
    await stepClock(hub.clock, hub.services.routing, 10 * 60_000);
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
    await endpoint.close();
  });

  it("lists a route's attempts newest first, each with its project-prefixed route, event and outcome", async () => {
    const list = await logs(good);
    expect(list.map((l) => l.event_uid)).toEqual(events.map((e) => e.uid).reverse());
    const first = list.at(-1)!;
    expect(first).toEqual({
      date: new Date(start).toISOString(),
      duration: 0,
      route_uid: `${hub.projectUid}/${good}`,
      event_uid: events[0]!.uid,
      attn: false,
      status: "200",
      text: "fine",
      url: `${endpoint.url}/ok`,
      source: "routing",
      routeUID: `${hub.projectUid}/${good}`,
      eventUID: events[0]!.uid,
    });
    const failed = await logs(failing);
    // Three events (the system notefile is not routed here), the first retried three times each.
    expect(failed).toHaveLength(3 * 4);
    expect(failed.every((l) => l.attn && l.status === "500" && l.text === "down")).toBe(true);
  });

  it("filters by device, notefile, system notefiles, dates, outcome and answer, and pages", async () => {
    expect((await logs(good, `?deviceUID=${a.uid}`)).map((l) => l.event_uid)).toEqual([
      events[2]!.uid,
      events[0]!.uid,
    ]);
    expect((await logs(good, "?files=data.qi,other.qi")).length).toBe(3);
    expect((await logs(good, "?systemFilesOnly=true")).map((l) => l.event_uid)).toEqual([events[3]!.uid]);
    const second = Math.floor(start / 1000);
    expect(
      (await logs(good, `?startDate=${second + 1}&endDate=${second + 2}`)).map((l) => l.event_uid),
    ).toEqual([events[2]!.uid, events[1]!.uid]);
    expect((await logs(good, "?sortOrder=asc")).map((l) => l.event_uid)).toEqual(events.map((e) => e.uid));
    const byEvent = (await logs(good, "?sortBy=event&sortOrder=asc")).map((l) => l.event_uid);
    expect(byEvent).toEqual([...byEvent].sort());
    expect((await logs(good, "?pageSize=3&pageNum=2")).map((l) => l.event_uid)).toEqual([events[0]!.uid]);
    expect(await logs(good, "?routingStatus=failure")).toEqual([]);
    expect((await logs(failing, "?routingStatus=failure&responseStatus=500")).length).toBe(12);
    expect(await logs(failing, "?responseStatus=200")).toEqual([]);
    const newest = await logs(failing, "?mostRecentOnly=true");
    expect(newest).toHaveLength(3);
    expect(newest.map((l) => l.source)).toEqual(["retry", "retry", "retry"]);
    expect((await logs(failing, `?mostRecentOnly=true&deviceUID=${b.uid}`)).map((l) => l.event_uid)).toEqual([
      events[1]!.uid,
    ]);
    // The older client's sort keys are the log's date.
    expect((await logs(good, "?sortBy=captured&sortOrder=asc")).map((l) => l.event_uid)).toEqual(
      events.map((e) => e.uid),
    );
    for (const query of [
      "?sortBy=size",
      "?sortOrder=up",
      "?pageSize=0",
      "?pageSize=10001",
      "?routingStatus=maybe",
      "?startDate=5&endDate=4",
      "?mostRecentOnly=perhaps",
    ]) {
      expectErrorBody(await hub.get(hub.p(`/routes/${good}/route-logs${query}`)), 400);
    }
  });

  it("shows the endpoints' answers (text) to developers and owners only: viewers see status and timing", async () => {
    const asViewer = await logs(good, "", "viewer");
    const asDeveloper = await logs(good);
    const asOwner = await logs(good, "", "owner");
    expect(asDeveloper.every((l) => l.text === "fine")).toBe(true);
    expect(asOwner).toEqual(asDeveloper);
    expect(asViewer).toEqual(asDeveloper.map(({ text: _text, ...rest }) => rest));
    expect(asViewer.every((l) => !("text" in l))).toBe(true);
    const byEvent = async (as: string): Promise<Log[]> =>
      (await hub.get(hub.p(`/events/${events[1]!.uid}/route-logs`), { as })).json as Log[];
    expect((await byEvent("viewer")).some((l) => "text" in l)).toBe(false);
    const developer = await byEvent("developer");
    expect(developer.length).toBeGreaterThan(0);
    expect(developer.every((l) => l.text === (l.status === "200" ? "fine" : "down"))).toBe(true);
    expect(await byEvent("viewer")).toEqual(developer.map(({ text: _text, ...rest }) => rest));
  });

  it("lists an event's attempts through every route", async () => {
    const res = await hub.get(hub.p(`/events/${events[0]!.uid}/route-logs`), { as: "viewer" });
    expect(res.status).toBe(200);
    const list = res.json as Log[];
    expect(list).toHaveLength(5);
    expect(new Set(list.map((l) => l.route_uid))).toEqual(
      new Set([`${hub.projectUid}/${good}`, `${hub.projectUid}/${failing}`]),
    );
    expect(list.every((l) => l.event_uid === events[0]!.uid)).toBe(true);
    expectErrorBody(await hub.get(hub.p("/events/00000000-0000-4000-8000-000000000000/route-logs")), 404);
    expectErrorBody(
      await hub.get(`/v1/projects/${hub.otherProjectUid}/events/${events[0]!.uid}/route-logs`, {
        as: "outsider",
      }),
      404,
    );
  });

  it("counts attempts per route and period, or for the project, in /usage/route-logs", async () => {
    const day = new Date(Math.floor(start / 86_400_000) * 86_400_000).toISOString().replace(".000Z", "Z");
    const res = await hub.get(hub.p("/usage/route-logs?period=day"), { as: "viewer" });
    expect(res.status).toBe(200);
    expect(res.json.truncated).toBe(false);
    expect(res.json.route_logs).toEqual(
      expect.arrayContaining([
        {
          period: day,
          route: good,
          successful_routes: 4,
          failed_routes: 0,
          total_routes: 4,
          avg_latency_ms: null,
        },
        {
          period: day,
          route: failing,
          successful_routes: 0,
          failed_routes: 12,
          total_routes: 12,
          avg_latency_ms: null,
        },
      ]),
    );
    const project = await hub.get(hub.p("/usage/route-logs?period=month&aggregate=project"));
    expect(project.json.route_logs).toEqual([
      {
        period: new Date(Date.UTC(2026, 0, 1)).toISOString().replace(".000Z", "Z"),
        successful_routes: 4,
        failed_routes: 12,
        total_routes: 16,
        avg_latency_ms: null,
      },
    ]);
    const one = await hub.get(hub.p(`/usage/route-logs?period=week&routeUID=${good}&limit=1`));
    expect(one.json.route_logs).toHaveLength(1);
    expect(one.json.route_logs[0]).toMatchObject({ route: good, total_routes: 4 });
    const none = await hub.get(
      hub.p(
        `/usage/route-logs?period=day&startDate=${Math.floor(start / 1000) - 100}&endDate=${Math.floor(start / 1000) - 1}`,
      ),
    );
    expect(none.json).toEqual({ route_logs: [], truncated: false });
    expectErrorBody(await hub.get(hub.p("/usage/route-logs")), 400);
    expectErrorBody(await hub.get(hub.p("/usage/route-logs?period=year")), 400);
    expectErrorBody(await hub.get(hub.p("/usage/route-logs?period=day&aggregate=device")), 400);
  });
});
