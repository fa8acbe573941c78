import { afterEach, describe, expect, it } from "vitest";
import { World } from "../../firmware/world/World.js";
import { SyncWorld } from "./support/syncWorld.js";

/**
 * card.time.rsp.notecard.api.json: `area`, `zone`, `minutes`, `lat`, `lon`, `country` of the
 * module's place, "if the cell tower is recognized". Without a GPS fix the hub places the module
 * at its serving tower (the session's `tower`, named from the cities data), so card.time after a
 * cellular sync answers with that place instead of `UTC,Unknown` (note-c's `NoteTimeST` keeps
 * asking while the zone starts with `UTC`).
 */
let world: SyncWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

describe("card.time after a cellular sync", () => {
  it("names the serving tower's place: area, country, lat/lon and zone", async () => {
    world = await SyncWorld.start("in-process");
    const berlin = new World({ clock: world.clock, position: { lat: 52.52, lon: 13.405 } });
    const sim = await world.module({ world: berlin });
    await world.sync(sim);
    const time = await world.req(sim, { req: "card.time" });
    expect(time).toMatchObject({ area: "Berlin", country: "DE" });
    const tower = berlin.towers()[0]!;
    expect(time["lat"]).toBe(tower.lat);
    expect(time["lon"]).toBe(tower.lon);
    // The zone from the hub's zone lookup (the optional zone package).
    expect(time["zone"]).toMatch(/^(CET|CEST),Europe\/Berlin$/);
    expect(time["minutes"]).toBe(60);
  });
});
