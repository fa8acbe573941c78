import { describe, expect, it } from "vitest";
import { bootInWorld, notesOf } from "../../support/worldFixture.js";

const MINUTE = 60_000;

describe("card.motion", () => {
  it("answers {} until motion reporting is started", async () => {
    const { t, world } = await bootInWorld();
    world.shake(4);
    expect(await t.req({ req: "card.motion" })).toEqual({});
    expect(await t.req({ req: "card.motion.mode", start: true })).toEqual({ start: true, seconds: 5 });
  });

  it("counts events, lists orientation changes and free falls since the last call", async () => {
    const { t, world, clock } = await bootInWorld({ timeKnown: true });
    await t.req({ req: "card.motion.mode", start: true });
    world.shake(3);
    await clock.advance(1000);
    world.setOrientation("portrait-up");
    world.setOrientation("landscape-left");
    world.freeFall();
    const at = Math.floor(clock.now() / 1000);
    expect(await t.req({ req: "card.motion" })).toEqual({
      count: 4,
      status: "portrait-up,landscape-left",
      alert: true,
      motion: at,
    });
    await clock.advance(MINUTE);
    expect(await t.req({ req: "card.motion" })).toEqual({ status: "landscape-left", motion: at });
  });

  it("gives movements per bucket over the last minutes, in base 36 with * above 35", async () => {
    const { t, world, clock } = await bootInWorld();
    await t.req({ req: "card.motion.mode", start: true, seconds: 10 });
    // Line the clock up on a bucket edge so the buckets are the test's.
    await clock.advance(10_000 - (clock.now() % 10_000) + 5000);
    world.shake(2);
    await clock.advance(10_000);
    world.shake(12);
    await clock.advance(10_000);
    world.shake(40);
    await clock.advance(1000); // the last bucket is the one in progress
    const reply = await t.req({ req: "card.motion", minutes: 1 });
    expect(reply).toMatchObject({ count: 54, seconds: 10 });
    expect(reply["movements"]).toBe("0002C*");
  });

  it("says moving or stopped by the events of the last bucket against motion", async () => {
    const { t, world, clock } = await bootInWorld();
    expect(await t.req({ req: "card.motion.mode", start: true, seconds: 60, motion: 10 })).toEqual({
      start: true,
      seconds: 60,
      motion: 10,
    });
    world.setMotion("moving", 30);
    await clock.advance(2 * MINUTE);
    expect((await t.req({ req: "card.motion" }))["mode"]).toBe("moving");
    world.setMotion("moving", 5);
    await clock.advance(2 * MINUTE);
    expect((await t.req({ req: "card.motion" }))["mode"]).toBe("stopped");
  });

  it.each([
    [{ start: true, stop: true }, /start and stop cannot be used together/],
    [{ sensitivity: 9 }, /sensitivity "9" is not one of -1, 0, 1, 2, 3, 4, 5/],
    [{ seconds: 0 }, /seconds must be at least 1/],
  ])("card.motion.mode refuses %j", async (args, message) => {
    const { t } = await bootInWorld();
    expect((await t.req({ req: "card.motion.mode", ...args })).err).toMatch(message);
  });

  it("stops the accelerometer: no motion reported, card.temp says off, periodic GPS samples every period", async () => {
    const { t, world, clock } = await bootInWorld();
    expect(await t.req({ req: "card.motion.mode", stop: true })).toEqual({ stop: true });
    expect(await t.req({ req: "card.motion" })).toEqual({});
    expect((await t.req({ req: "card.temp" }))["off"]).toBe(true);
    await t.req({ req: "card.location.mode", mode: "periodic", seconds: 300 });
    await t.req({ req: "card.location.track", start: true });
    world.setMotion("still");
    await clock.advance(30 * MINUTE);
    expect(notesOf(t, "_track.qo")).toHaveLength(6);
  });

  it("exists on every variant but LoRa", async () => {
    const { t } = await bootInWorld({ variant: "lora" });
    for (const req of ["card.motion", "card.motion.mode", "card.motion.sync", "card.motion.track"])
      expect((await t.req({ req })).err).toBe("request not supported for lora {not-supported}");
  });
});

describe("card.motion.track", () => {
  it("writes _motion.qo notes when enough recent buckets had motion, at most every minutes", async () => {
    const { t, world, clock } = await bootInWorld();
    await t.req({ req: "card.motion.mode", seconds: 60 });
    expect(
      await t.req({ req: "card.motion.track", start: true, minutes: 5, count: 5, threshold: 2 }),
    ).toEqual({});
    await clock.advance(10 * MINUTE);
    expect(notesOf(t, "_motion.qo")).toEqual([]);
    world.setMotion("moving", 12);
    await clock.advance(10 * MINUTE);
    const notes = notesOf(t, "_motion.qo");
    expect(notes.map((n) => n.body)).toEqual([
      { movements: "CCCCC", seconds: 60, orientation: "face-up", motion: 60 },
      { movements: "CCCCC", seconds: 60, orientation: "face-up", motion: 60 },
    ]);
    expect(notes[0]!.where).toBeUndefined(); // no fix yet
  });

  it("writes one at once on an orientation change with now, into a custom file", async () => {
    const { t, world, clock } = await bootInWorld();
    await t.req({ req: "card.motion.track", start: true, now: true, minutes: 60, file: "moves.qo" });
    world.setOrientation("face-down");
    await clock.advance(1);
    expect(notesOf(t, "moves.qo").map((n) => n.body!["orientation"])).toEqual(["face-down"]);
    expect((await t.req({ req: "card.motion.track", file: "moves.db" })).err).toMatch(/outbound queue/);
    await t.req({ req: "card.motion.track", stop: true });
    world.setOrientation("face-up");
    await clock.advance(2 * 60 * MINUTE);
    expect(notesOf(t, "moves.qo")).toHaveLength(1);
  });
});

describe("card.motion.sync", () => {
  it("asks for a sync when enough buckets had motion, at most once every minutes", async () => {
    const { t, world, clock } = await bootInWorld();
    expect(
      await t.req({ req: "card.motion.sync", start: true, minutes: 10, count: 3, threshold: 2 }),
    ).toEqual({});
    await clock.advance(5 * MINUTE);
    expect(t.module.sensors.syncWishes()).toEqual([]);
    world.setMotion("moving");
    await clock.advance(25 * MINUTE);
    expect(t.module.sensors.takeSyncWishes().map((w) => w.reason)).toEqual(["motion", "motion", "motion"]);
    await t.req({ req: "card.motion.sync", stop: true });
    await clock.advance(25 * MINUTE);
    expect(t.module.sensors.syncWishes()).toEqual([]);
  });

  it("with threshold 0 asks only when the orientation changes", async () => {
    const { t, world, clock } = await bootInWorld();
    await t.req({ req: "card.motion.sync", start: true, threshold: 0, minutes: 1 });
    world.setMotion("moving");
    await clock.advance(5 * MINUTE);
    expect(t.module.sensors.syncWishes()).toEqual([]);
    world.setOrientation("angled");
    await clock.advance(10_000);
    expect(t.module.sensors.syncWishes()).toHaveLength(1);
  });
});

describe("motion and ATTN", () => {
  it("fires ATTN on motion and on a change of motion when those events are enabled", async () => {
    const { t, world } = await bootInWorld();
    await t.req({ req: "card.attn", mode: "arm,motion" });
    expect(t.module.attn.high).toBe(false);
    world.shake();
    expect(t.module.attn.high).toBe(true);
    expect((await t.req({ req: "card.attn" }))["files"]).toEqual(["motion"]);
    await t.req({ req: "card.attn", mode: "arm,-motion,motionchange" });
    world.setMotion("moving");
    expect(t.module.attn.high).toBe(true);
  });
});
