import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_SORT_KEYS, type EventRecord } from "../../../hub/store/records.js";
import { expectErrorBody, type HubResponse, TestHub } from "../support/hubFixture.js";
import { BASE_SEC, EventWorld } from "./support/eventWorld.js";

/**
 * GET /v1/projects/{P}/events against a model of 160 stored events: every filter of the
 * definition, every sort key both ways, paging to its edges, and selectFields. Every response is
 * also checked against the OpenAPI definitions (hubFixture).
 */
describe("Get Project Events", () => {
  let hub: TestHub;
  let world: EventWorld;

  beforeAll(async () => {
    hub = await TestHub.start();
    world = await EventWorld.build(hub, { count: 160 });
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const get = (query: string, as = "viewer"): Promise<HubResponse> =>
    hub.get(hub.p(`/events?${query}`), { as });
  /** Every event the query answers, through all its pages of 10000. */
  const uids = async (query: string): Promise<string[]> => {
    const res = await get(`pageSize=10000&${query}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json.has_more).toBe(false);
    return res.json.events.map((e: { event: string }) => e.event);
  };
  const inOrder = (events: EventRecord[]) => world.sorted(events, "captured", false).map((e) => e.uid);
  const where = (test: (e: EventRecord) => boolean) => inOrder(world.events.filter(test));

  it("answers the project's events oldest captured first, 50 a page, as the definition shows them", async () => {
    const res = await get("");
    expect(res.status).toBe(200);
    expect(res.headers["x-has-more"]).toBe("true");
    const expected = world.sorted(world.events, "captured", false).slice(0, 50);
    expect(res.json).toEqual({
      events: expected.map(EventWorld.view),
      has_more: true,
      through: expected[49]!.uid,
    });
    // The other project's event is not among them, on any page.
    expect(await uids("")).toEqual(inOrder(world.events));
  });

  it("filters by device, serial number, session, event UID, notefiles and system notefiles", async () => {
    const [d1, d2, d3] = world.devices;
    expect(await uids(`deviceUID=${d1!.uid}&deviceUID=${d3!.uid}`)).toEqual(
      where((e) => e.deviceUid === d1!.uid || e.deviceUid === d3!.uid),
    );
    expect(await uids(`deviceUIDs=${d2!.uid}`)).toEqual(where((e) => e.deviceUid === d2!.uid));
    expect(await uids("serialNumber=alpha&serialNumber=charlie")).toEqual(
      where((e) => e.data.sn === "alpha" || e.data.sn === "charlie"),
    );
    const session = world.sessions[1]!;
    expect(await uids(`sessionUID=${session}`)).toEqual(where((e) => e.sessionUid === session));
    const picked = [world.events[3]!, world.events[77]!, world.events[150]!];
    expect(await uids(picked.map((e) => `eventUID=${e.uid}`).join("&"))).toEqual(inOrder(picked));
    expect(await uids(`files=${encodeURIComponent("_health.qo, data.qo")}`)).toEqual(
      where((e) => e.file === "_health.qo" || e.file === "data.qo"),
    );
    expect(await uids("systemFilesOnly=true")).toEqual(where((e) => e.file.startsWith("_")));
    expect(await uids("systemFilesOnly=false")).toEqual(inOrder(world.events));
    expect(await uids("systemFilesOnly=true&files=data.qo,_log.qo")).toEqual(
      where((e) => e.file === "_log.qo"),
    );
    expect(await uids(`deviceUID=${d1!.uid}&files=sensors.qo&sessionUID=${session}`)).toEqual(
      where((e) => e.deviceUid === d1!.uid && e.file === "sensors.qo" && e.sessionUid === session),
    );
    expect(await uids("deviceUID=dev:1&files=nothing.qo")).toEqual([]);
  });

  it("filters by fleet: the fleets an event was received in, else its device's fleets now", async () => {
    const { fleetA, fleetB } = world;
    const inFleet = (uid: string) => where((e) => world.fleetsOf(e).includes(uid));
    expect(await uids(`fleetUID=${fleetA.uid}`)).toEqual(inFleet(fleetA.uid));
    expect(await uids(`fleetUID=${fleetB.uid}`)).toEqual(inFleet(fleetB.uid));
    // "charlie" is in fleet B now; its events recorded in fleet A count there, not in B.
    const recordedInA = world.events.filter((e) => Array.isArray(e.data.fleets));
    expect(recordedInA.length).toBeGreaterThan(0);
    const fleetAEvents = await uids(`fleetUID=${fleetA.uid}`);
    const fleetBEvents = await uids(`fleetUID=${fleetB.uid}`);
    for (const e of recordedInA) {
      expect(fleetAEvents).toContain(e.uid);
      expect(fleetBEvents).not.toContain(e.uid);
    }
    expect(await uids(`fleetUID=${fleetA.uid}&fleetUID=${fleetB.uid}`)).toEqual(
      where((e) => world.fleetsOf(e).length > 0),
    );
    // A fleet of no project, or of another project, has no events here.
    expect(await uids("fleetUID=fleet:00000000-0000-4000-8000-000000000000")).toEqual([]);
  });

  it("filters by a date range, inclusive to the second, on the captured or the uploaded time", async () => {
    const start = BASE_SEC + 7 * 86_400;
    const end = BASE_SEC + 14 * 86_400;
    expect(await uids(`startDate=${start}&endDate=${end}`)).toEqual(
      where((e) => e.whenSec >= start && e.whenSec <= end),
    );
    expect(await uids(`startDate=${start}&endDate=${end}&dateType=captured`)).toEqual(
      where((e) => e.whenSec >= start && e.whenSec <= end),
    );
    expect(await uids(`startDate=${start}&endDate=${end}&dateType=uploaded`)).toEqual(
      where((e) => e.received >= start && e.received < end + 1),
    );
    expect(await uids(`startDate=${start}`)).toEqual(where((e) => e.whenSec >= start));
    expect(await uids(`endDate=${end}&dateType=uploaded`)).toEqual(where((e) => e.received < end + 1));
    // An event received at x.25 s is inside an endDate of x.
    const edge = world.events.find((e) => e.received % 1 !== 0)!;
    const second = Math.floor(edge.received);
    expect(await uids(`startDate=${second}&endDate=${second}&dateType=uploaded`)).toContain(edge.uid);
    expect(await uids(`startDate=${new Date(start * 1000).toISOString()}`)).toEqual(
      where((e) => e.whenSec >= start),
    );
  });

  it.each(EVENT_SORT_KEYS.flatMap((by) => [[by, "asc"] as const, [by, "desc"] as const]))(
    "sorts by %s, %s, ties always broken the same way",
    async (by, order) => {
      const expected = world.sorted(world.events, by, order === "desc").map((e) => e.uid);
      expect(await uids(`sortBy=${by}&sortOrder=${order}`)).toEqual(expected);
      // The same order across pages of 17.
      const paged: string[] = [];
      for (let pageNum = 1; ; pageNum++) {
        const res = await get(`sortBy=${by}&sortOrder=${order}&pageSize=17&pageNum=${pageNum}`);
        paged.push(...res.json.events.map((e: { event: string }) => e.event));
        expect(res.headers["x-has-more"]).toBe(String(res.json.has_more));
        if (!res.json.has_more) break;
      }
      expect(paged).toEqual(expected);
    },
  );

  it("pages from 1 with pageSize 1 to 10000; has_more is exact and through names the last event", async () => {
    const all = world.sorted(world.events, "captured", false);
    const one = await get("pageSize=1&pageNum=160");
    expect(one.json).toMatchObject({ has_more: false, through: all[159]!.uid });
    expect(one.json.events).toHaveLength(1);
    const exact = await get("pageSize=80&pageNum=2");
    expect(exact.json.has_more).toBe(false);
    expect(exact.headers["x-has-more"]).toBe("false");
    expect(exact.json.events.map((e: { event: string }) => e.event)).toEqual(all.slice(80).map((e) => e.uid));
    const beyond = await get("pageSize=50&pageNum=9");
    expect(beyond.json).toEqual({ events: [], has_more: false });
    const max = await get("pageSize=10000");
    expect(max.json.events).toHaveLength(160);
    for (const bad of [
      "pageSize=0",
      "pageSize=10001",
      "pageSize=-1",
      "pageSize=2.5",
      "pageSize=x",
      "pageNum=0",
    ]) {
      expectErrorBody(await get(bad), 400);
    }
  });

  it("returns only the selected fields, nested as in the event, and always the event's UID", async () => {
    const fields = encodeURIComponent("deviceUID, when,body.temperature,file,body.nope,best_lat");
    const res = await get(`pageSize=5&selectFields=${fields}`);
    const expected = world.sorted(world.events, "captured", false).slice(0, 5);
    expect(res.json.events).toEqual(
      expected.map((e) => {
        const out: Record<string, unknown> = {
          event: e.uid,
          device: e.deviceUid,
          when: e.whenSec,
          body: { temperature: (e.data.body as Record<string, unknown>).temperature },
          file: e.file,
        };
        if (e.data.best_lat !== undefined) out.best_lat = e.data.best_lat;
        return out;
      }),
    );
    // A whole member and a part of it: the whole member, either way round.
    for (const fields of ["body.n,body", "body,body.n"]) {
      const whole = await get(`pageSize=1&selectFields=${fields}`);
      expect(whole.json.events[0]).toEqual({ event: expected[0]!.uid, body: expected[0]!.data.body });
    }
    // Paths through arrays (as nested members), a member named __proto__, names that are no member.
    const odd = await world.add({
      uid: "00000000-0000-4000-8000-00000000dee9",
      data: JSON.parse('{"body":{"list":[{"x":1},{"x":2}]},"__proto__":{"polluted":1}}'),
    });
    const picked = await get(
      `eventUID=${odd.uid}&selectFields=body.list.1.x,body.list.x,__proto__,constructor,toString`,
    );
    expect(picked.text).toBe(
      `{"events":[{"event":"${odd.uid}","body":{"list":{"1":{"x":2}}},"__proto__":{"polluted":1}}],"has_more":false,"through":"${odd.uid}"}`,
    );
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses bad arguments with 400 and the hub's error body", async () => {
    for (const bad of [
      "sortBy=when",
      "sortOrder=up",
      "dateType=received",
      "format=xml",
      "systemFilesOnly=yes",
      "startDate=-1",
      "endDate=yesterday",
      `startDate=${BASE_SEC + 10}&endDate=${BASE_SEC}`,
      "selectFields=,",
      "selectFields=body..x",
      `selectFields=${"x".repeat(300)}`,
      "sortBy=captured&sortBy=modified",
    ]) {
      const res = await get(bad);
      expectErrorBody(res, 400);
      expect(res.json.err).toMatch(/query argument/);
    }
  });

  it("needs the viewer role in the project", async () => {
    expect((await get("", "viewer")).status).toBe(200);
    expectErrorBody(await get("", "outsider"), 403);
    expectErrorBody(await hub.get(hub.p("/events"), { as: null }), 401);
  });
});
