import { afterEach, describe, expect, it } from "vitest";
import { openLocationCode } from "../../core/openLocationCode.js";
import { parseTrack } from "../../runtime/tracks/parseTrack.js";
import { World } from "../../firmware/world/World.js";
import { gpxDocument, twoHourDrive } from "../firmware/world/support/trackFiles.js";
import { SyncWorld, TRANSPORTS } from "./support/syncWorld.js";

const MINUTE = 60_000;
/** Beverly, Massachusetts: the drive heads east along the coast. */
const START = { lat: 42.5584, lon: -70.88 };

describe.each(TRANSPORTS)("a tracker on the road (%s)", (transport) => {
  let w: SyncWorld;
  afterEach(async () => w?.close());

  it("shows on the hub's map: its notes' events, sessions and device record carry GPS, tower, triangulated and best places, named", async () => {
    w = await SyncWorld.start(transport);
    const world = new World({ clock: w.clock, position: START });
    const sim = await w.module({ world });
    await w.sync(sim); // provisioned, where it starts
    const t0 = w.clock.now();
    world.playTrack(
      parseTrack(gpxDocument(twoHourDrive({ start: START, t0, parkedBefore: 20, driving: 60, speed: 15 }))),
    );
    await w.req(sim, { req: "card.location.mode", mode: "periodic", seconds: 60 });
    await w.req(sim, { req: "card.location.track", start: true, heartbeat: true, hours: -30 });
    await w.req(sim, { req: "card.triangulate", mode: "cell", on: true });
    await w.clock.advance(120 * MINUTE);
    const track = [...sim.module.notebox.file("_track.qo")!.notes.values()];
    expect(track.length).toBeGreaterThan(60);
    expect(await w.sync(sim)).toMatchObject({ status: expect.stringMatching(/\{sync-end\}/) });

    // Every track note is an event at the note's place, named after the nearest town.
    const events = (await w.events(sim, { system: true })).filter((e) => e.file === "_track.qo");
    expect(events).toHaveLength(track.length);
    const byWhen = new Map(track.map((n) => [n.where!.time, n.where!]));
    for (const e of events) {
      const where = byWhen.get(e.data["where_when"] as number)!;
      expect(e.data).toMatchObject({
        where_lat: where.lat,
        where_lon: where.lon,
        where_country: "US",
        where_timezone: "America/New_York",
        where_olc: openLocationCode(where.lat, where.lon),
      });
      expect(e.data["where_location"]).toMatch(/, MA$/);
      // The device's places when the session began: the tower serving it, triangulated, best.
      expect(e.data).toMatchObject({
        tower_country: "US",
        tri_country: "US",
        best_location_type: "gps",
        tower_id: expect.stringMatching(/^1,1,\d+,\d+$/),
      });
    }
    // The drive went east: the first and last notes are far apart, and named apart.
    expect(events[0]!.data["where_lon"]).not.toBe(events.at(-1)!.data["where_lon"]);

    // The session record: `where` as a plus code, the cell, the tower and the triangulated place.
    const sessions = await w.services.store.telemetry.listSessions(
      w.projectUid,
      sim.module.deviceUid,
      { firstSyncOnly: false },
      { offset: 0, limit: 10 },
    );
    const last = sessions.items[0]!.data; // newest first
    const fix = sim.module.sensors.gnss.current()!;
    expect(last).toMatchObject({
      where: openLocationCode(fix.lat, fix.lon),
      where_country: "US",
      cell: expect.stringMatching(/^1,1,\d+,\d+$/),
      tower: { c: "US", source: "tower", mcc: 1, mnc: 1, n: expect.stringMatching(/, MA$/) },
      tri: { c: "US", source: "triangulation", towers: expect.any(Number) },
      triangulate: { mode: "cell", wifi: 0 },
    });

    // The device record, and the devices list filtered by place, see where it went.
    const device = await w.device(sim);
    expect(device.details.gpsLocation).toMatchObject({
      country: "US",
      latitude: fix.lat,
      longitude: fix.lon,
    });
    expect(device.details.towerLocation?.country).toBe("US");
    expect(device.details.triangulatedLocation?.country).toBe("US");
    const town = device.details.gpsLocation!.name.split(",")[0]!;
    const api = async (query: string) => {
      const response = await fetch(`${w.hub.url}/v1/projects/${w.projectUid}/devices?${query}`, {
        headers: { authorization: `Bearer ${w.hub.credentials.token}` },
      });
      return ((await response.json()) as { devices: { uid: string }[] }).devices.map((d) => d.uid);
    };
    expect(await api(`location=${encodeURIComponent(town)}`)).toEqual([sim.module.deviceUid]);
    expect(await api("location=Atlantis")).toEqual([]);
  }, 60_000);
});
