import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventRecord } from "../../../hub/store/records.js";
import { expectErrorBody, TestHub } from "../support/hubFixture.js";
import { BASE_SEC, EventWorld } from "./support/eventWorld.js";

interface CursorPage {
  events: { event: string }[];
  next_cursor: string;
  has_more: boolean;
}

/**
 * GET …/events-cursor: the events in the order the hub stored them, from the cursor event on.
 * 300 events walked both ways in pages of 7 while events keep arriving.
 */
describe("Get Project Events by Cursor", () => {
  let hub: TestHub;
  let world: EventWorld;

  beforeAll(async () => {
    hub = await TestHub.start();
    world = await EventWorld.build(hub, { count: 300, seed: 3 });
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const page = async (query: string, path = "/events-cursor"): Promise<CursorPage> => {
    const res = await hub.get(hub.p(`${path}?${query}`), { as: "viewer" });
    expect(res.status, res.text).toBe(200);
    return res.json as CursorPage;
  };

  /** Walks to the end, adding an event after every page; returns the UIDs seen. */
  const walk = async (query: string, path?: string): Promise<{ seen: string[]; added: EventRecord[] }> => {
    const seen: string[] = [];
    const added: EventRecord[] = [];
    let cursor = "";
    for (let pages = 0; pages < 200; pages++) {
      const p = await page(`limit=7&${query}${cursor ? `&cursor=${cursor}` : ""}`, path);
      seen.push(...p.events.map((e) => e.event));
      expect(p.has_more).toBe(p.next_cursor !== "");
      if (!p.has_more) return { seen, added };
      expect(p.events).toHaveLength(7);
      cursor = p.next_cursor;
      // Arrivals while the walk is on: a new event now and then, some with early capture times.
      if (pages % 3 === 0) added.push(await world.add(pages % 2 ? { whenSec: BASE_SEC - 86_400 } : {}));
    }
    throw new Error("the walk did not end");
  };

  it("walks oldest first through every event once, and reaches the ones stored meanwhile", async () => {
    const before = world.events.map((e) => e.uid);
    const { seen, added } = await walk("");
    expect(added.length).toBeGreaterThan(10);
    expect(seen).toEqual([...before, ...added.map((e) => e.uid)]);
    expect(new Set(seen).size).toBe(seen.length);
  });

  it("walks newest first (sortOrder=desc) through every event stored before it began, once", async () => {
    const before = world.events.map((e) => e.uid).reverse();
    const { seen, added } = await walk("sortOrder=desc");
    expect(added.length).toBeGreaterThan(10);
    expect(seen).toEqual(before);
  });

  it("starts with the cursor event; an unknown cursor, or another project's, is ignored", async () => {
    const uids = world.events.map((e) => e.uid);
    const from = await page(`limit=3&cursor=${uids[10]}`);
    expect(from.events.map((e) => e.event)).toEqual(uids.slice(10, 13));
    expect(from.next_cursor).toBe(uids[13]);
    const back = await page(`limit=3&cursor=${uids[10]}&sortOrder=desc`);
    expect(back.events.map((e) => e.event)).toEqual([uids[10], uids[9], uids[8]]);
    const unknown = await page("limit=3&cursor=00000000-0000-4000-8000-000000000000");
    expect(unknown.events.map((e) => e.event)).toEqual(uids.slice(0, 3));
    const last = await page(`limit=3&cursor=${uids[uids.length - 1]}`);
    expect(last).toEqual({
      events: [expect.objectContaining({ event: uids[uids.length - 1] })],
      next_cursor: "",
      has_more: false,
    });
    const exactly = await page(`limit=2&cursor=${uids[uids.length - 2]}`);
    expect(exactly.next_cursor).toBe("");
    expect(exactly.has_more).toBe(false);
  });

  it("answers the events in full, 50 by default, as the definition shows them", async () => {
    const p = await page("");
    expect(p.events).toEqual(world.events.slice(0, 50).map(EventWorld.view));
    expect(p.next_cursor).toBe(world.events[50]!.uid);
  });

  it("filters by device, fleet, notefiles and system notefiles, the cursor event only if it passes", async () => {
    const device = world.devices[0]!.uid;
    const { fleetB } = world;
    const { seen } = await walk(`deviceUID=${device}&systemFilesOnly=true&files=_session.qo,_log.qo,data.qo`);
    // Taken after the walk: events added during it that match come at its end, as they should.
    const want = world.events
      .filter((e) => e.deviceUid === device && ["_session.qo", "_log.qo"].includes(e.file))
      .map((e) => e.uid);
    expect(seen).toEqual(want);
    const inFleet = world.events.filter((e) => world.fleetsOf(e).includes(fleetB.uid)).map((e) => e.uid);
    expect((await page(`fleetUID=${fleetB.uid}&limit=10000`)).events.map((e) => e.event)).toEqual(inFleet);
    // A cursor event that does not pass the filter starts the page without being in it.
    const other = world.events.find((e) => e.deviceUid !== device)!;
    const index = world.events.indexOf(other);
    const after = world.events
      .slice(index)
      .filter((e) => e.deviceUid === device)
      .slice(0, 2)
      .map((e) => e.uid);
    expect(
      (await page(`deviceUID=${device}&limit=2&cursor=${other.uid}`)).events.map((e) => e.event),
    ).toEqual(after);
  });

  it("has a fleet variant with dates (on the captured time)", async () => {
    const { fleetA } = world;
    const start = BASE_SEC + 3 * 86_400;
    const end = BASE_SEC + 20 * 86_400;
    const want = world.events
      .filter((e) => world.fleetsOf(e).includes(fleetA.uid) && e.whenSec >= start && e.whenSec <= end)
      .map((e) => e.uid)
      .reverse();
    const p = await page(
      `startDate=${start}&endDate=${end}&sortOrder=desc&limit=10000`,
      `/fleets/${fleetA.uid}/events-cursor`,
    );
    expect(p.events.map((e) => e.event)).toEqual(want);
    expect(p).toMatchObject({ next_cursor: "", has_more: false });
    expectErrorBody(
      await hub.get(hub.p("/fleets/fleet:00000000-0000-4000-8000-000000000000/events-cursor")),
      404,
    );
  });

  it("refuses a bad limit or sortOrder with 400", async () => {
    for (const bad of ["limit=0", "limit=10001", "limit=ten", "sortOrder=newest", "systemFilesOnly=2"]) {
      expectErrorBody(await hub.get(hub.p(`/events-cursor?${bad}`)), 400);
    }
    expectErrorBody(await hub.get(hub.p("/events-cursor"), { as: "outsider" }), 403);
  });
});
