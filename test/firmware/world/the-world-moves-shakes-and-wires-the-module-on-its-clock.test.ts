import { describe, expect, it } from "vitest";
import type { WorldEvent } from "../../../firmware/world/Surroundings.js";
import { distanceMeters } from "../../../firmware/world/geo.js";
import { parseTrack } from "../../../runtime/tracks/parseTrack.js";
import { DEFAULT_MOTION_RATE, World } from "../../../firmware/world/World.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { gpxDocument, twoHourDrive } from "./support/trackFiles.js";

const MINUTE = 60_000;

function setup() {
  const clock = new FakeClock();
  const world = new World({ clock });
  const events: WorldEvent[] = [];
  world.onEvent((e) => events.push(e));
  return { clock, world, events };
}

describe("the world's position", () => {
  it("is nowhere until placed, then fixed where it was put", () => {
    const { world } = setup();
    expect(world.position()).toBeUndefined();
    expect(world.towers()).toEqual([]);
    world.setPosition({ lat: 51.5, lon: -0.12 });
    expect(world.position()).toEqual({ lat: 51.5, lon: -0.12, speed: 0, course: 0 });
    expect(() => world.setPosition({ lat: 95, lon: 0 })).toThrow(/latitude/);
  });

  it("follows a track played on the module clock, and motion follows the track", async () => {
    const { clock, world, events } = setup();
    const points = twoHourDrive({
      start: { lat: 42.5, lon: -71 },
      t0: 0,
      parkedBefore: 20,
      driving: 60,
      speed: 15,
    });
    world.playTrack(parseTrack(gpxDocument(points)));
    const start = clock.now();
    expect(world.moving()).toBe(false);
    await clock.advance(30 * MINUTE);
    const here = world.position()!;
    expect(here.speed).toBeCloseTo(15, 1);
    expect(distanceMeters(points[0]!, here)).toBeCloseTo(15 * 600, -1);
    expect(world.moving()).toBe(true);
    await clock.advance(60 * MINUTE);
    expect(world.moving()).toBe(false);
    expect(world.position()!.speed).toBe(0);
    expect(
      events.filter((e) => e.kind === "motion").map((e) => [e.at - start, (e as { moving: boolean }).moving]),
    ).toEqual([
      [20 * MINUTE, true],
      [80 * MINUTE, false],
    ]);
    // Motion events accumulate only while under way.
    expect(world.motionCount(start, start + 20 * MINUTE)).toBe(0);
    expect(world.motionCount(start, clock.now())).toBe(60 * DEFAULT_MOTION_RATE);
    await clock.advance(60 * MINUTE);
    expect(world.playing).toBe(false);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("plays faster with a time scale, loops, and stays where it is when stopped", async () => {
    const { clock, world } = setup();
    const track = parseTrack(
      gpxDocument([
        { lat: 0, lon: 0, time: 0 },
        { lat: 0, lon: 0.01, time: 600_000 },
      ]),
    );
    world.playTrack(track, { timeScale: 10, loop: true });
    await clock.advance(30_000); // 5 minutes of track
    expect(world.position()!.lon).toBeCloseTo(0.005, 6);
    expect(world.position()!.speed).toBeCloseTo((track.distanceMeters / 600) * 10, 3);
    await clock.advance(60_000); // one lap and a half
    expect(world.position()!.lon).toBeCloseTo(0.005, 6);
    world.stopTrack();
    const stopped = world.position()!;
    await clock.advance(MINUTE);
    expect(world.position()).toEqual({ lat: stopped.lat, lon: stopped.lon, speed: 0, course: 0 });
    expect(world.moving()).toBe(false);
  });
});

describe("the world's motion", () => {
  it("counts events exactly over any interval, adding shakes to sustained motion", async () => {
    const { clock, world, events } = setup();
    const t0 = clock.now();
    world.shake(3);
    await clock.advance(MINUTE);
    world.setMotion("moving", 30);
    await clock.advance(2 * MINUTE);
    world.setMotion("still");
    await clock.advance(MINUTE);
    expect(world.motionCount(t0 - 1, clock.now())).toBe(3 + 60);
    // Counts split anywhere add up to the whole.
    const cuts = [t0 - 1, t0 + 10_000, t0 + MINUTE + 1, t0 + 90_000, t0 + 3 * MINUTE - 7, clock.now()];
    let sum = 0;
    for (let i = 1; i < cuts.length; i++) sum += world.motionCount(cuts[i - 1]!, cuts[i]!);
    expect(sum).toBe(63);
    expect(world.lastMotionAt()).toBe(t0 + 3 * MINUTE);
    expect(events.map((e) => e.kind)).toEqual(["shake", "motion", "motion"]);
  });

  it("records orientation changes and free falls for the accelerometer", async () => {
    const { clock, world } = setup();
    const t0 = clock.now();
    world.setOrientation("portrait-up");
    await clock.advance(1000);
    world.setOrientation("face-down");
    world.freeFall();
    expect(world.orientation()).toBe("face-down");
    expect(world.orientationChanges(t0 - 1)).toEqual(["portrait-up", "face-down"]);
    expect(world.orientationChanges(t0)).toEqual(["face-down"]);
    expect(world.freeFallSince(t0)).toBe(true);
    expect(world.freeFallSince(clock.now())).toBe(false);
    expect(() => world.setOrientation("sideways" as never)).toThrow(/orientation/);
  });
});

describe("the world's AUX lines", () => {
  it("carry the module's outputs, else what the outside drives, else the pull", () => {
    const { clock, world } = setup();
    const edges: string[] = [];
    world.aux.onEdge((e) => edges.push(`AUX${e.pin}:${e.high ? "H" : "L"}`));
    world.aux.setup(1, { output: true, high: true });
    world.aux.setup(2, { output: false, pull: "up" });
    world.aux.setup(3, { output: false, pull: "none" });
    expect([1, 2, 3, 4].map((p) => world.aux.level(p as 1))).toEqual([true, true, false, false]);
    world.aux.drive(2, false);
    world.aux.drive(3, true);
    world.aux.drive(1, false); // the module's output wins
    expect([1, 2, 3].map((p) => world.aux.read(p as 1))).toEqual([true, false, true]);
    world.aux.release(2);
    expect(world.aux.read(2)).toBe(true);
    expect(world.aux.driven(1)).toBe(true);
    expect(world.aux.driven(2)).toBeUndefined();
    expect(edges).toEqual(["AUX1:H", "AUX2:H", "AUX2:L", "AUX3:H", "AUX2:H"]);
    expect(clock.pendingTimers()).toBe(0);
  });
});

describe("the world's surroundings", () => {
  it("give default towers on a grid around the position, or the ones a scenario sets", () => {
    const { world } = setup();
    world.setPosition({ lat: 42.5776, lon: -70.87134 });
    const towers = world.towers();
    expect(towers).toHaveLength(3);
    expect(towers[0]).toMatchObject({ mcc: 1, mnc: 1, rat: "lte" });
    expect(distanceMeters(towers[0]!, world.position()!)).toBeLessThan(2000);
    expect(world.towers()).toEqual(towers);
    const mine = [{ mcc: 310, mnc: 410, lac: 1, cid: 2, lat: 1, lon: 2, rssi: -60, rat: "lte" }];
    world.setTowers(mine);
    expect(world.towers()).toEqual(mine);
  });

  it("hold temperature, light, an I2C environment sensor and the charging signal", () => {
    const { world } = setup();
    expect(world.temperature()).toBe(24);
    expect(world.light()).toBeUndefined();
    world.setTemperature(-5.5);
    world.setLight(820);
    world.setEnvironment({ temperature: 21, humidity: 40, pressure: 101_325 });
    world.setCharging(true);
    expect([world.temperature(), world.light(), world.environment()?.humidity, world.charging()]).toEqual([
      -5.5,
      820,
      40,
      true,
    ]);
    expect(() => world.setLight(-1)).toThrow(/lux/);
  });
});

describe("long waits", () => {
  it("a track played very slowly waits in steps instead of firing at once", async () => {
    const { clock, world } = setup();
    const track = parseTrack(
      gpxDocument([
        { lat: 0, lon: 0, time: 0 },
        { lat: 0, lon: 0, time: 60_000 },
        { lat: 0, lon: 0.01, time: 120_000 },
      ]),
    );
    world.playTrack(track, { timeScale: 1 / 100_000 }); // a minute of track takes 69 days
    await clock.advance(60 * 24 * 60 * MINUTE);
    expect(world.moving()).toBe(false);
    await clock.advance(10 * 24 * 60 * MINUTE);
    expect(world.moving()).toBe(true);
    expect(clock.pendingTimers()).toBe(1);
  });
});
