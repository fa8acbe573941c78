import { describe, expect, it } from "vitest";
import { bootInWorld, SALEM } from "../../support/worldFixture.js";

const SCAN = [
  '+CWLAP:(4,"Blue dock",-51,"74:AC:B9:12:12:F8",1)',
  '+CWLAP:(3,"Shop \\"B\\"",-70,"6c:55:e8:91:62:e1",11)',
  "garbage line",
  "",
].join("\n");

describe("card.triangulate", () => {
  it("keeps the mode, and on/usb only with set", async () => {
    const { t } = await bootInWorld({ variant: "cell-wifi" });
    expect(await t.req({ req: "card.triangulate" })).toEqual({});
    expect(await t.req({ req: "card.triangulate", mode: "wifi,cell", on: true, usb: true })).toEqual({
      mode: "wifi,cell",
    });
    expect(await t.req({ req: "card.triangulate", on: true, usb: true, set: true })).toEqual({
      mode: "wifi,cell",
      on: true,
      usb: true,
    });
    const again = await t.reboot();
    expect(await again.req({ req: "card.triangulate", set: true })).toEqual({ mode: "wifi,cell" });
    expect(await again.req({ req: "card.triangulate", mode: "-" })).toEqual({});
  });

  it.each([
    ["cell", { mode: "cells" }, /mode "cells" is not one of cell, wifi, cell,wifi, wifi,cell, -/],
    [
      "wifi",
      { mode: "cell" },
      /cell triangulation needs a cellular radio, which the wifi module does not have \{not-supported\}/,
    ],
    ["cell", { minutes: -2 }, /minutes must be 0 or more, or -1 to reset/],
  ])("on %s refuses %j", async (variant, args, message) => {
    const { t } = await bootInWorld({ variant });
    expect((await t.req({ req: "card.triangulate", ...args })).err).toMatch(message);
  });

  it("keeps a host's WiFi scan and reports its length and time", async () => {
    const { t } = await bootInWorld({ variant: "cell-wifi", timeKnown: true });
    const reply = await t.req({ req: "card.triangulate", mode: "wifi", text: SCAN, time: 1_767_225_000 });
    expect(reply).toEqual({ mode: "wifi", length: SCAN.length, time: 1_767_225_000 });
    expect(t.module.sensors.triangulation.accessPoints).toEqual([
      { ssid: "Blue dock", bssid: "74:ac:b9:12:12:f8", rssi: -51, channel: 1 },
      { ssid: 'Shop "B"', bssid: "6c:55:e8:91:62:e1", rssi: -70, channel: 11 },
    ]);
  });

  it("reports the last motion, and gives the next session towers and scans only once moved", async () => {
    const { t, world, clock } = await bootInWorld({ variant: "cell-wifi", timeKnown: true });
    await t.req({ req: "card.location.mode", mode: "fixed", lat: SALEM.lat, lon: SALEM.lon });
    expect(t.module.sensors.locationReport().triangulation).toBeUndefined();
    await t.req({ req: "card.triangulate", mode: "cell,wifi", text: SCAN });
    let report = t.module.sensors.locationReport();
    expect(report.fix).toMatchObject({ lat: SALEM.lat, lon: SALEM.lon, source: "fixed" });
    expect(report.towers).toHaveLength(3);
    // A scan has been taken and the module has not moved since: nothing new to send.
    expect(report.triangulation).toBeUndefined();
    await clock.advance(60_000);
    world.shake();
    report = t.module.sensors.locationReport();
    expect(report.triangulation).toMatchObject({ mode: "cell,wifi", towers: world.towers() });
    expect(report.triangulation!.wifi).toHaveLength(2);
    expect((await t.req({ req: "card.triangulate" }))["motion"]).toBe(Math.floor(clock.now() / 1000));
    t.module.sensors.triangulation.scanned(t.module.noteTime());
    expect(t.module.sensors.locationReport().triangulation).toBeUndefined();
    await t.req({ req: "card.triangulate", on: true, set: true });
    expect(t.module.sensors.locationReport().triangulation).toBeDefined();
    await t.req({ req: "card.triangulate", usb: true, on: true, set: true });
    expect(t.module.sensors.locationReport().triangulation).toBeUndefined();
    t.power.onUsb = true;
    expect(t.module.sensors.locationReport().triangulation).toBeDefined();
  });

  it("reports no towers on a module without a cellular radio", async () => {
    const { t } = await bootInWorld({ variant: "wifi" });
    expect(t.module.sensors.locationReport().towers).toEqual([]);
  });
});
