import { afterEach, describe, expect, it } from "vitest";
import type { JsonObject } from "../../core/json.js";
import { WATCHDOG_FILE } from "../../hub/devices/FleetWatchdogs.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { SyncWorld } from "../sync/support/syncWorld.js";

const MINUTE = 60_000;

let world: SyncWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

/** Minutes after `start` of each watchdog event of the module, in order. */
async function barks(w: SyncWorld, sim: SimulatedModule, start: number): Promise<number[]> {
  await w.services.watchdogs.idle();
  const events = await w.events(sim, { system: true });
  return events.filter((e) => e.file === WATCHDOG_FILE).map((e) => (e.received * 1000 - start) / MINUTE);
}

/** A module that has had one session and then stays silent (minimum mode: no sync of its own). */
async function silentModule(w: SyncWorld): Promise<SimulatedModule> {
  const sim = await w.module();
  await w.req(sim, { req: "hub.set", mode: "minimum" });
  await w.sync(sim);
  return sim;
}

describe("a fleet's watchdog", () => {
  it("makes an event each period a member stays silent, and waits a period after its next session", async () => {
    world = await SyncWorld.start("in-process");
    const sim = await silentModule(world);
    const start = world.clock.now();
    await world.api("POST", "/fleets", { label: "watched", watchdog_mins: 60 });
    const fleets = ((await world.api("GET", "/fleets"))["fleets"] as JsonObject[]).map((f) => f["uid"]);
    await world.api("PUT", `/devices/${sim.module.deviceUid}/fleets`, { fleet_uids: fleets });
    await world.clock.advance(59 * MINUTE);
    expect(await barks(world, sim, start)).toEqual([]);
    await world.clock.advance(MINUTE);
    expect(await barks(world, sim, start)).toEqual([60]);
    await world.clock.advance(60 * MINUTE);
    expect(await barks(world, sim, start)).toEqual([60, 120]);
    // A session at 150 minutes: the next report is a period after it.
    await world.clock.advance(30 * MINUTE);
    await world.sync(sim);
    await world.services.watchdogs.idle();
    await world.clock.advance(59 * MINUTE);
    expect(await barks(world, sim, start)).toEqual([60, 120]);
    await world.clock.advance(MINUTE);
    expect(await barks(world, sim, start)).toEqual([60, 120, 210]);
    const event = (await world.events(sim, { system: true })).find((e) => e.file === WATCHDOG_FILE)!;
    expect(event.data["body"]).toEqual({ minutes: 60, last_activity: start / 1000, silent_mins: 60 });
  });

  it("watches a member of several fleets at the shortest period, and stops with the watchdog or the membership", async () => {
    world = await SyncWorld.start("in-process");
    const sim = await silentModule(world);
    const start = world.clock.now();
    const hourly = (await world.api("POST", "/fleets", { label: "hourly", watchdog_mins: 60 }))["uid"];
    const half = (await world.api("POST", "/fleets", { label: "half", watchdog_mins: 30 }))["uid"];
    await world.api("PUT", `/devices/${sim.module.deviceUid}/fleets`, { fleet_uids: [hourly, half] });
    await world.clock.advance(90 * MINUTE);
    expect(await barks(world, sim, start)).toEqual([30, 60, 90]);
    // The short watchdog off: the hourly one goes on from the last report.
    await world.api("PUT", `/fleets/${String(half)}`, { watchdog_mins: 0 });
    await world.clock.advance(60 * MINUTE);
    expect(await barks(world, sim, start)).toEqual([30, 60, 90, 150]);
    // Out of the fleet: nothing more.
    await world.api("DELETE", `/devices/${sim.module.deviceUid}/fleets`, { fleet_uids: [hourly] });
    await world.clock.advance(180 * MINUTE);
    expect(await barks(world, sim, start)).toEqual([30, 60, 90, 150]);
  });

  it("makes nothing where no fleet has a watchdog", async () => {
    world = await SyncWorld.start("in-process");
    const sim = await silentModule(world);
    const start = world.clock.now();
    await world.api("POST", "/fleets", { label: "plain" });
    await world.clock.advance(7 * 24 * 60 * MINUTE);
    expect(await barks(world, sim, start)).toEqual([]);
  });
});
