import { describe, expect, it } from "vitest";
import { distanceMeters, destination } from "../../../firmware/world/geo.js";
import { bootInWorld, notesOf, SALEM } from "../../support/worldFixture.js";

const MINUTE = 60_000;

describe("card.location.mode and card.location", () => {
  it("start off, with the GPS inactive and no location", async () => {
    const { t } = await bootInWorld();
    expect(await t.req({ req: "card.location.mode" })).toEqual({ mode: "off" });
    expect(await t.req({ req: "card.location" })).toEqual({
      mode: "off",
      status: "GPS inactive {gps-inactive}",
    });
    expect(await t.req({ req: "card.location.mode", mode: "" })).toEqual({ mode: "off" });
  });

  it.each([
    [{ mode: "sometimes" }, /card\.location\.mode: mode "sometimes" is not one of "", off, periodic/],
    [{ seconds: 4 }, /seconds must be at least 5, or -1 to reset \(got 4\)/],
    [{ lat: 42 }, /lat and lon must be given together/],
    [{ lat: 91, lon: 0 }, /lat must be -90 to 90 degrees \(got 91\)/],
    [{ lon: 181, lat: 0 }, /lon must be -180 to 180 degrees/],
    [
      { vseconds: "usb:60;sometimes:5" },
      /vseconds "usb:60;sometimes:5" is not a valid voltage-variable string/,
    ],
    [{ threshold: -2 }, /threshold must be at least 0/],
    [{ max: -5 }, /max must be a radius in metres/],
    [{ max: 100 }, /a geofence \(max\) needs lat and lon for its center/],
    [{ mode: "fixed" }, /fixed mode needs lat and lon/],
    [
      { mode: "periodic", seconds: "60" },
      /cannot interpret JSON: string being placed into a non-string field \{io\}|\{io\}/,
    ],
  ])("refuse %j, changing nothing", async (args, message) => {
    const { t } = await bootInWorld();
    const commits = t.store.commits;
    expect((await t.req({ req: "card.location.mode", ...args })).err).toMatch(message);
    expect(t.store.commits).toBe(commits);
  });

  it("keep periodic settings in flash, with -1 and - resetting them", async () => {
    const { t } = await bootInWorld();
    expect(
      await t.req({
        req: "card.location.mode",
        mode: "periodic",
        seconds: 3600,
        threshold: 4,
        vseconds: "usb:60;normal:600",
      }),
    ).toEqual({ mode: "periodic", seconds: 3600, threshold: 4, vseconds: "usb:60;normal:600" });
    const again = await t.reboot();
    expect(await again.req({ req: "card.location.mode" })).toEqual({
      mode: "periodic",
      seconds: 3600,
      threshold: 4,
      vseconds: "usb:60;normal:600",
    });
    expect(await again.req({ req: "card.location.mode", seconds: -1, threshold: -1, vseconds: "-" })).toEqual(
      {
        mode: "periodic",
      },
    );
    expect(await again.req({ req: "card.location.mode", mode: "-" })).toEqual({ mode: "off" });
  });

  it("pick the sampling period by supply state with vseconds", async () => {
    const { t } = await bootInWorld();
    await t.req({
      req: "card.location.mode",
      mode: "periodic",
      seconds: 900,
      vseconds: "usb:10;high:60;900",
    });
    const gnss = t.module.sensors.gnss;
    expect(gnss.periodSeconds).toBe(900); // 3.9 V with the default thresholds is "normal"
    t.power.set({ onUsb: true, volts: 5 });
    await t.req({ req: "card.voltage", mode: "lipo" });
    expect(gnss.periodSeconds).toBe(10);
  });

  it("report a fixed location, kept across restarts, and the last fix once fixed mode ends", async () => {
    const { t, clock } = await bootInWorld({ timeKnown: true });
    expect(await t.req({ req: "card.location.mode", mode: "fixed", lat: 51.5007, lon: -0.1246 })).toEqual({
      mode: "fixed",
      lat: 51.5007,
      lon: -0.1246,
    });
    const again = await t.reboot();
    const here = await again.req({ req: "card.location" });
    expect(here).toMatchObject({
      mode: "off",
      lat: 51.5007,
      lon: -0.1246,
      status: "GPS inactive {gps-inactive}",
    });
    expect(here["time"]).toBe(Math.floor(clock.now() / 1000));
    // Without lat/lon, fixed mode keeps the place it had.
    expect(await again.req({ req: "card.location.mode", mode: "fixed" })).toMatchObject({ lat: 51.5007 });
    // Out of fixed mode the module knows no location (it never had a fix).
    await again.req({ req: "card.location.mode", mode: "off" });
    expect(await again.req({ req: "card.location" })).toEqual({
      mode: "off",
      status: "GPS inactive {gps-inactive}",
    });
    await again.req({ req: "card.location.mode", mode: "periodic" });
    await clock.advance(60_000);
    await again.req({ req: "card.location.mode", mode: "fixed", lat: 1, lon: 1 });
    await again.req({ req: "card.location.mode", mode: "off" });
    expect(await again.req({ req: "card.location" })).toMatchObject({ lat: SALEM.lat, lon: SALEM.lon });
  });

  it("use the last fix for fixed mode and as a geofence center, and forget it with delete", async () => {
    const { t, clock } = await bootInWorld();
    await t.req({ req: "card.location.mode", mode: "periodic", seconds: 60 });
    await clock.advance(MINUTE);
    const fix = await t.req({ req: "card.location" });
    expect(fix).toMatchObject({ lat: SALEM.lat, lon: SALEM.lon, dop: 1.2 });
    // The module learnt the time from the GPS.
    expect((await t.req({ req: "card.time" }))["time"]).toBe(Math.floor(clock.now() / 1000));
    const fenced = await t.req({ req: "card.location.mode", max: 250 });
    expect(fenced).toMatchObject({ lat: SALEM.lat, lon: SALEM.lon, max: 250, minutes: 5 });
    expect(await t.req({ req: "card.location" })).not.toHaveProperty("max"); // 0 m from the center
    const again = await t.reboot();
    expect(await again.req({ req: "card.location" })).toMatchObject({ lat: SALEM.lat, time: fix["time"] });
    await again.req({ req: "card.location.mode", mode: "off", delete: true });
    expect(await again.req({ req: "card.location" })).toEqual({
      mode: "off",
      status: "GPS inactive {gps-inactive}",
    });
    expect((await again.req({ req: "card.location.mode", mode: "fixed" })).err).toMatch(
      /fixed mode needs lat and lon/,
    );
  });

  it("follow the world every five seconds in continuous mode", async () => {
    const { t, clock, world } = await bootInWorld();
    await t.req({ req: "card.location.mode", mode: "continuous" });
    await clock.advance(10_000);
    expect((await t.req({ req: "card.location" }))["status"]).toMatch(
      /^GPS search \(10 sec, 37\/41 dB SNR, 0\/9 sats\) \{gps-active\} \{gps-signal\} \{gps-sats\}$/,
    );
    await clock.advance(25_000);
    expect(await t.req({ req: "card.location" })).toMatchObject({ mode: "continuous", lat: SALEM.lat });
    const away = destination(SALEM, 0, 500);
    world.setPosition(away);
    await clock.advance(5_000);
    const moved = await t.req({ req: "card.location" });
    expect(distanceMeters(away, { lat: moved["lat"] as number, lon: moved["lon"] as number })).toBeLessThan(
      0.01,
    );
  });

  it("mark track notes inside the geofence and ask for a sync when the module leaves it", async () => {
    const { t, clock, world } = await bootInWorld();
    await t.req({
      req: "card.location.mode",
      mode: "periodic",
      seconds: 60,
      lat: SALEM.lat,
      lon: SALEM.lon,
      max: 200,
      minutes: 2,
    });
    await t.req({ req: "card.location.track", start: true });
    await clock.advance(MINUTE);
    expect(notesOf(t, "_track.qo")[0]!.body).toMatchObject({ inside_fence: true });
    world.setPosition(destination(SALEM, 45, 1000));
    world.shake(2);
    await clock.advance(MINUTE + 10_000); // the next tick, and a hot fix 5 s later
    const outside = await t.req({ req: "card.location" });
    expect(outside["max"]).toBe(1000);
    expect(t.module.notebox.syncRequests().has("_track.qo")).toBe(false); // not yet 2 minutes out
    world.setMotion("moving");
    await clock.advance(3 * MINUTE);
    expect(notesOf(t, "_track.qo").at(-1)!.body!["inside_fence"]).toBeUndefined();
    expect(t.module.notebox.syncRequests().has("_track.qo")).toBe(true);
  });

  it("leave the GPS schedule running when only the geofence changes", async () => {
    const { t, clock } = await bootInWorld();
    await t.req({ req: "card.location.mode", mode: "periodic", seconds: 600 });
    await t.req({ req: "card.location.track", start: true });
    await clock.advance(MINUTE);
    await t.req({ req: "card.location.mode", max: 300 });
    await t.req({ req: "card.location.mode", max: -1 });
    await clock.advance(MINUTE);
    expect(notesOf(t, "_track.qo")).toHaveLength(1);
    await t.req({ req: "card.location.mode", seconds: 900 });
    await clock.advance(MINUTE);
    expect(notesOf(t, "_track.qo")).toHaveLength(2); // a new schedule starts with a fix
  });

  it("follow each variant: no GPS modes without a receiver, fixed mode everywhere", async () => {
    for (const variant of ["wifi", "lora"]) {
      const { t } = await bootInWorld({ variant });
      expect((await t.req({ req: "card.location.mode", mode: "periodic" })).err).toBe(
        `card.location.mode: periodic mode needs a GPS receiver, which the ${variant} module does not have {not-supported}`,
      );
      expect(await t.req({ req: "card.location.mode", mode: "fixed", lat: 1, lon: 2 })).toEqual({
        mode: "fixed",
        lat: 1,
        lon: 2,
      });
      expect(await t.req({ req: "card.location" })).toMatchObject({ mode: "off", lat: 1, lon: 2 });
    }
    const { t } = await bootInWorld({ variant: "ntn" });
    expect(await t.req({ req: "card.location.mode", mode: "continuous" })).toEqual({ mode: "continuous" });
  });
});

describe("notes a host adds", () => {
  it("carry the module's last location, except in templated notefiles", async () => {
    const { t, clock } = await bootInWorld();
    await t.req({ req: "note.add", file: "before.qo", body: { n: 1 } });
    expect(notesOf(t, "before.qo")[0]!.where).toBeUndefined();
    await t.req({ req: "card.location.mode", mode: "periodic" });
    await clock.advance(MINUTE);
    const fixTime = (await t.req({ req: "card.location" }))["time"];
    await t.req({ req: "note.add", file: "after.qo", body: { n: 2 } });
    await t.req({ req: "note.update", file: "things.db", note: "a", body: { n: 3 } });
    await t.req({ req: "note.template", file: "compact.qo", body: { n: 11 } });
    await t.req({ req: "note.add", file: "compact.qo", body: { n: 4 } });
    const where = { lat: SALEM.lat, lon: SALEM.lon, time: fixTime };
    expect(notesOf(t, "after.qo")[0]!.where).toEqual(where);
    expect(notesOf(t, "things.db")[0]!.where).toEqual(where);
    expect(notesOf(t, "compact.qo")[0]!.where).toBeUndefined();
    // Kept on flash with the note.
    const again = await t.reboot();
    expect(notesOf(again, "after.qo")[0]!.where).toEqual(where);
  });
});

describe("card.location.track", () => {
  it("reports its settings: start/stop, heartbeat hours or minutes, a custom file, the period", async () => {
    const { t } = await bootInWorld();
    expect(await t.req({ req: "card.location.track" })).toEqual({ stop: true });
    await t.req({ req: "card.location.mode", mode: "periodic", seconds: 120 });
    expect(await t.req({ req: "card.location.track", start: true })).toEqual({ start: true, seconds: 120 });
    expect(await t.req({ req: "card.location.track", heartbeat: true, hours: 2, file: "trips.qo" })).toEqual({
      start: true,
      heartbeat: true,
      hours: 2,
      file: "trips.qo",
    });
    expect(await t.req({ req: "card.location.track", hours: -90 })).toMatchObject({ minutes: 90 });
    expect(await t.req({ req: "card.location.track", heartbeat: true })).not.toHaveProperty("hours");
    expect(await t.req({ req: "card.location.track", hours: 0, file: "-" })).toEqual({
      start: true,
      heartbeat: true,
      hours: 24,
    });
    expect(await t.req({ req: "card.location.track", stop: true })).toMatchObject({ stop: true });
  });

  it.each([
    [{ start: true, stop: true }, /start and stop cannot be used together \{incompatible\}/],
    [{ file: "trips.db" }, /file must be an outbound queue \(\.qo or \.qos\), not trips\.db/],
    [{ file: "_secret.qo" }, /reserved notefile name/],
    [{ payload: "not base64!" }, /payload is not valid base64/],
  ])("refuses %j", async (args, message) => {
    const { t } = await bootInWorld();
    expect((await t.req({ req: "card.location.track", ...args })).err).toMatch(message);
  });

  it("writes heartbeats while parked, carries a one-off payload, and writes to a custom file", async () => {
    const { t, clock } = await bootInWorld();
    await t.req({ req: "card.location.mode", mode: "periodic", seconds: 600 });
    await t.req({
      req: "card.location.track",
      start: true,
      heartbeat: true,
      hours: 2,
      file: "trips.qos",
      payload: "AQID",
    });
    await clock.advance(6 * 60 * MINUTE + 31_000); // the first fix at 30 s, then every 2 hours
    const notes = notesOf(t, "trips.qos");
    expect(notes.map((n) => Boolean(n.body!["heartbeat"]))).toEqual([false, true, true, true]);
    expect([...notes[0]!.payload!]).toEqual([1, 2, 3]);
    expect(notes[1]!.payload).toBeUndefined();
    expect(notes.slice(1).map((n) => n.body!["seconds"])).toEqual([7200, 7200, 7200]);
    expect(notesOf(t, "_track.qo")).toEqual([]);
  });
});
