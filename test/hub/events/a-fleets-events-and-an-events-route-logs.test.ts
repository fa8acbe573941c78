import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventRecord } from "../../../hub/store/records.js";
import { expectErrorBody, TestHub } from "../support/hubFixture.js";
import { parseCsv } from "./support/parseCsv.js";
import { EventWorld } from "./support/eventWorld.js";

describe("Get Fleet Events and Get Route Logs by Event", () => {
  let hub: TestHub;
  let world: EventWorld;
  let otherFleet: string;

  beforeAll(async () => {
    hub = await TestHub.start();
    world = await EventWorld.build(hub, { count: 120, seed: 8 });
    otherFleet = hub.ids.fleetUid();
    await hub.store.projects.createFleet({
      uid: otherFleet,
      projectUid: hub.otherProjectUid,
      label: "elsewhere",
      created: hub.clock.now(),
      smartRule: null,
      smartRuleEnabled: false,
      watchdogMins: 0,
      connectivityAssurance: null,
    });
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const uids = (events: EventRecord[]) => events.map((e) => e.uid);
  const fleetEvents = async (fleet: string, query = ""): Promise<string[]> => {
    const res = await hub.get(hub.p(`/fleets/${fleet}/events?pageSize=10000&${query}`), { as: "viewer" });
    expect(res.status, res.text).toBe(200);
    return res.json.events.map((e: { event: string }) => e.event);
  };

  it("answers the events of the fleet (recorded in it, else of its devices now) with the project's filters and sorts", async () => {
    const { fleetA, fleetB } = world;
    for (const fleet of [fleetA.uid, fleetB.uid]) {
      const mine = world.events.filter((e) => world.fleetsOf(e).includes(fleet));
      expect(await fleetEvents(fleet)).toEqual(uids(world.sorted(mine, "captured", false)));
      expect(await fleetEvents(fleet, "sortBy=best_location&sortOrder=desc")).toEqual(
        uids(world.sorted(mine, "best_location", true)),
      );
      const device = world.devices[1]!.uid;
      expect(await fleetEvents(fleet, `deviceUID=${device}&systemFilesOnly=true`)).toEqual(
        uids(
          world.sorted(
            mine.filter((e) => e.deviceUid === device && e.file.startsWith("_")),
            "captured",
            false,
          ),
        ),
      );
      // The path names the fleet: a fleetUID argument does not widen it.
      expect(await fleetEvents(fleet, `fleetUID=${fleet === fleetA.uid ? fleetB.uid : fleetA.uid}`)).toEqual(
        uids(world.sorted(mine, "captured", false)),
      );
    }
    const page = await hub.get(hub.p(`/fleets/${fleetA.uid}/events?pageSize=3&selectFields=deviceUID,file`));
    expect(page.headers["x-has-more"]).toBe("true");
    expect(Object.keys(page.json.events[0]).sort()).toEqual(["device", "event", "file"]);
    const csv = parseCsv(
      (await hub.get(hub.p(`/fleets/${fleetA.uid}/events?format=csv&selectFields=eventUID`))).text,
    );
    expect(csv.slice(1).map((r) => r[0])).toEqual((await fleetEvents(fleetA.uid)).slice(0, 50));
  });

  it("knows a device's move between fleets only through what its events recorded", async () => {
    const { fleetA, fleetB } = world;
    const charlie = world.devices[3]!;
    const recorded = world.events.filter((e) => e.deviceUid === charlie.uid && Array.isArray(e.data.fleets));
    const unrecorded = world.events.filter(
      (e) => e.deviceUid === charlie.uid && !Array.isArray(e.data.fleets),
    );
    expect(recorded.length).toBeGreaterThan(0);
    expect(unrecorded.length).toBeGreaterThan(0);
    await hub.store.devices.removeFromFleets(charlie.uid, [fleetB.uid]);
    await hub.store.devices.addToFleets(charlie.uid, [fleetA.uid]);
    const inA = await fleetEvents(fleetA.uid, `deviceUID=${charlie.uid}`);
    expect(inA.sort()).toEqual(uids([...recorded, ...unrecorded]).sort());
    expect(await fleetEvents(fleetB.uid, `deviceUID=${charlie.uid}`)).toEqual([]);
    await hub.store.devices.removeFromFleets(charlie.uid, [fleetA.uid]);
    await hub.store.devices.addToFleets(charlie.uid, [fleetB.uid]);
  });

  it("answers 404 for a fleet that is not the project's, and 400 for bad arguments", async () => {
    expectErrorBody(await hub.get(hub.p(`/fleets/${otherFleet}/events`)), 404);
    expectErrorBody(await hub.get(hub.p("/fleets/fleet:00000000-0000-4000-8000-000000000000/events")), 404);
    expectErrorBody(await hub.get(hub.p(`/fleets/${world.fleetA.uid}/events?sortBy=serial`)), 400);
    expectErrorBody(await hub.get(hub.p(`/fleets/${world.fleetA.uid}/events?pageSize=10001`)), 400);
    expectErrorBody(await hub.get(hub.p(`/fleets/${world.fleetA.uid}/events`), { as: "outsider" }), 403);
    // A fleet of another project filters the project's events down to none.
    expect((await hub.get(hub.p(`/events?fleetUID=${otherFleet}`))).json.events).toEqual([]);
  });

  it("answers an event's route logs: none before routes exist; 404 for an event not in the project", async () => {
    const event = world.events[0]!;
    const res = await hub.get(hub.p(`/events/${event.uid}/route-logs`), { as: "viewer" });
    expect(res.status).toBe(200);
    expect(res.json).toEqual([]);
    expectErrorBody(await hub.get(hub.p("/events/00000000-0000-4000-8000-000000000000/route-logs")), 404);
    const elsewhere = await hub.store.telemetry.listEvents(
      hub.otherProjectUid,
      {},
      { by: "captured", descending: false },
      { offset: 0, limit: 1 },
    );
    expect(elsewhere.items).toHaveLength(1);
    expectErrorBody(await hub.get(hub.p(`/events/${elsewhere.items[0]!.uid}/route-logs`)), 404);
  });
});
