import { describe, expect, it } from "vitest";
import type { Note } from "../../../firmware/storage/Note.js";
import { distanceMeters } from "../../../firmware/world/geo.js";
import { parseTrack } from "../../../runtime/tracks/parseTrack.js";
import { DEFAULT_MOTION_RATE, World } from "../../../firmware/world/World.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { bootTestModule, type TestModule } from "../../support/moduleFixture.js";
import { gpxDocument, twoHourDrive } from "./support/trackFiles.js";

const MINUTE = 60_000;
const START = { lat: 42.5776, lon: -70.87134 };

function trackNotes(t: TestModule, file = "_track.qo"): Note[] {
  return [...(t.module.notebox.file(file)?.notes.values() ?? [])];
}

async function tracker(options: { variant?: string } = {}) {
  const clock = new FakeClock();
  const world = new World({ clock, position: START });
  const t = await bootTestModule({ clock, world, variant: options.variant ?? "cell" });
  return { clock, world, t };
}

describe("a tracker driving a two-hour GPX track", () => {
  it("writes one note when it starts, a journey while driving, and heartbeats while parked", async () => {
    const { clock, world, t } = await tracker();
    const t0 = clock.now();
    const points = twoHourDrive({ start: START, t0, parkedBefore: 20, driving: 60, speed: 15 });
    world.playTrack(parseTrack(gpxDocument(points)));
    expect(await t.req({ req: "card.location.mode", mode: "periodic", seconds: 60 })).toEqual({
      mode: "periodic",
      seconds: 60,
    });
    expect(
      await t.req({ req: "card.location.track", start: true, heartbeat: true, hours: -30, sync: true }),
    ).toEqual({ start: true, heartbeat: true, minutes: 30 });

    await clock.advance(120 * MINUTE);
    const notes = trackNotes(t);
    const bodies = notes.map((n) => n.body!);

    // The first fix, 30 s after power-on (a cold start), is not a journey.
    expect(bodies[0]).toMatchObject({ dop: 1.2, time: Math.floor((t0 + 30_000) / 1000), temperature: 24 });
    expect(bodies[0]!["journey"]).toBeUndefined();
    // The module never synced: it took its time from the GPS.
    expect(notes[0]!.time).toBe(Math.floor((t0 + 30_000) / 1000));

    // Driving from minute 20 to minute 80: the first tick after it starts finds motion, the
    // receiver starts hot (5 s), then stays on and fixes every minute until the car parks.
    const journey = notes.filter((n) => n.body!["journey"] !== undefined);
    expect(journey).toHaveLength(60);
    const journeyId = Math.floor((t0 + 21 * MINUTE + 5000) / 1000);
    expect(journey.map((n) => n.body!["journey"])).toEqual(journey.map(() => journeyId));
    expect(journey.map((n) => n.body!["jcount"])).toEqual(journey.map((_, i) => i + 1));
    expect(journey.at(-1)!.body!["time"]).toBe(Math.floor((t0 + 80 * MINUTE) / 1000));
    expect(journey[1]!.body).toMatchObject({ seconds: 55 });
    for (const note of journey.slice(2)) {
      expect(note.body).toMatchObject({ seconds: 60, motion: DEFAULT_MOTION_RATE });
      expect(note.body!["velocity"] as number).toBeCloseTo(15, 1);
      expect(note.body!["bearing"] as number).toBeCloseTo(90, 0);
    }

    // Each note says how far it is from the previous note's location.
    for (let i = 1; i < notes.length; i++) {
      const d = distanceMeters(notes[i - 1]!.where!, notes[i]!.where!);
      expect(notes[i]!.body!["distance"] ?? 0).toBeCloseTo(d, 2);
    }
    const driven = bodies.reduce((sum, b) => sum + ((b["distance"] as number | undefined) ?? 0), 0);
    expect(driven).toBeCloseTo(15 * 60 * 60, -2);
    const last = points.at(-1)!;
    expect(distanceMeters(notes.at(-1)!.where!, last)).toBeLessThan(1);

    // Parked at minute 80: the next note is a heartbeat 30 minutes after the last one.
    const heartbeats = notes.filter((n) => n.body!["heartbeat"]);
    expect(heartbeats).toHaveLength(1);
    expect(heartbeats[0]!.time).toBe(Math.floor((t0 + 110 * MINUTE) / 1000));
    expect(heartbeats[0]!.body).toMatchObject({ heartbeat: true, seconds: 1800 });
    expect(heartbeats[0]!.body!["motion"]).toBeUndefined();
    expect(notes).toHaveLength(62);
    expect(t.module.notebox.syncRequests().has("_track.qo")).toBe(true);

    const location = await t.req({ req: "card.location" });
    expect(location).toMatchObject({ mode: "periodic", lat: notes.at(-1)!.where!.lat, dop: 1.2 });
    expect(location["status"]).toMatch(/^GPS updated \(\d+ sec, 41dB SNR, 9 sats\) \{gps-active\}/);
  });

  it("ends a journey when motion stops and starts a new one when it starts again", async () => {
    const { clock, world, t } = await tracker();
    await t.req({ req: "card.location.mode", mode: "periodic", seconds: 30 });
    await t.req({ req: "card.location.track", start: true });
    await clock.advance(MINUTE); // the first fix
    world.setMotion("moving");
    await clock.advance(5 * MINUTE);
    expect((await t.req({ req: "card.location.track" }))["journey"]).toBe(true);
    world.setMotion("still");
    await clock.advance(10 * MINUTE);
    expect(await t.req({ req: "card.location.mode" })).not.toHaveProperty("journey");
    world.setMotion("moving");
    await clock.advance(2 * MINUTE);
    world.setMotion("still");
    await clock.advance(10 * MINUTE);

    const journeys = new Map<unknown, unknown[]>();
    for (const note of trackNotes(t)) {
      const id = note.body!["journey"];
      if (id !== undefined) journeys.set(id, [...(journeys.get(id) ?? []), note.body!["jcount"]]);
    }
    const counts = [...journeys.values()];
    expect(counts).toHaveLength(2);
    expect(counts[0]).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(counts[1]).toEqual([1, 2, 3, 4]);
  });

  it("takes a fix for a shake over the motion threshold, and not for one under it", async () => {
    const { clock, world, t } = await tracker();
    await t.req({ req: "card.location.mode", mode: "periodic", seconds: 300, threshold: 3 });
    await t.req({ req: "card.location.track", start: true });
    await clock.advance(10 * MINUTE);
    expect(trackNotes(t)).toHaveLength(1);
    world.shake(3);
    await clock.advance(10 * MINUTE);
    expect(trackNotes(t)).toHaveLength(1);
    world.shake(4);
    await clock.advance(10 * MINUTE);
    const notes = trackNotes(t);
    expect(notes).toHaveLength(2);
    // Periods of five minutes and more keep no journeys.
    expect(notes[1]!.body).toMatchObject({ motion: 7 });
    expect(notes[1]!.body!["journey"]).toBeUndefined();
  });

  it("writes nothing without sky, counts the failed searches, and fixes once the sky is back", async () => {
    const { clock, world, t } = await tracker();
    world.setGps({ signal: false });
    await t.req({ req: "card.location.mode", mode: "periodic", seconds: 60 });
    await t.req({ req: "card.location.track", start: true });
    await clock.advance(10_000);
    expect((await t.req({ req: "card.location" }))["status"]).toBe(
      "GPS search (10 sec, 0/0 dB SNR, 0/0 sats) {gps-active}",
    );
    world.setMotion("moving");
    await clock.advance(10 * MINUTE);
    const searching = await t.req({ req: "card.location" });
    expect(searching["count"]).toBeGreaterThanOrEqual(2);
    expect(searching).not.toHaveProperty("lat");
    expect(trackNotes(t)).toHaveLength(0);
    world.setGps({ signal: true });
    await clock.advance(3 * MINUTE);
    expect(trackNotes(t).length).toBeGreaterThan(0);
    expect(await t.req({ req: "card.location" })).not.toHaveProperty("count");
  });

  it("keeps tracking across a restart, loses the journey, and leaves no timer behind once closed", async () => {
    const { clock, world, t } = await tracker();
    await t.req({ req: "card.location.mode", mode: "continuous" });
    await t.req({ req: "card.location.track", start: true, heartbeat: true, hours: 1 });
    world.setMotion("moving");
    await clock.advance(5 * MINUTE);
    const before = trackNotes(t).length;
    expect(before).toBeGreaterThan(3);
    await t.req({ req: "card.restart" });
    await clock.advance(5 * MINUTE);
    const notes = trackNotes(t);
    expect(notes.length).toBeGreaterThan(before + 3);
    const ids = new Set(notes.map((n) => n.body!["journey"]).filter((j) => j !== undefined));
    expect(ids.size).toBe(2); // the restart ended the journey in RAM
    expect(await t.req({ req: "card.location.track" })).toMatchObject({ start: true, hours: 1 });
    await t.module.close();
    world.setMotion("still");
    expect(clock.pendingTimers()).toBe(0);
  });
});
