import { describe, expect, it } from "vitest";
import { bootInWorld, notesOf } from "../../support/worldFixture.js";

const MINUTE = 60_000;

describe("card.temp", () => {
  it("reads the world's temperature to the sensor's sixteenth of a degree, with its calibration", async () => {
    const { t, world } = await bootInWorld();
    world.setTemperature(23.3);
    const reply = await t.req({ req: "card.temp" });
    expect(reply["value"]).toBe(23.3125);
    const calibration = reply["calibration"] as number;
    expect([-1, -1.5, -2, -2.5, -3, -3.5]).toContain(calibration);
    expect(Object.keys(reply).sort()).toEqual(["calibration", "value"]);
    // The calibration is the device's own: the same after a restart.
    expect((await (await t.reboot()).req({ req: "card.temp" }))["calibration"]).toBe(calibration);
  });

  it("adds an I2C environmental sensor's readings, with the supply", async () => {
    const { t, world } = await bootInWorld();
    world.setEnvironment({ temperature: 21.25, humidity: 48.5, pressure: 100_912 });
    t.power.set({ volts: 5.02, onUsb: true });
    expect(await t.req({ req: "card.temp" })).toMatchObject({
      temperature: 21.25,
      humidity: 48.5,
      pressure: 100_912,
      usb: true,
      voltage: 5.02,
    });
  });

  it("logs _temp.qo notes every minutes, by supply state with status, until stopped", async () => {
    const { t, world, clock } = await bootInWorld({ timeKnown: true });
    const start = Math.floor(clock.now() / 1000);
    expect(await t.req({ req: "card.temp", minutes: 15 })).toHaveProperty("value");
    world.setTemperature(30);
    await clock.advance(60 * MINUTE);
    const notes = notesOf(t, "_temp.qo");
    expect(notes.map((n) => n.body)).toEqual([1, 2, 3, 4].map(() => ({ value: 30, voltage: 3.9 })));
    expect(notes.map((n) => n.time)).toEqual([15, 30, 45, 60].map((m) => start + m * 60));
    // The period follows the supply: 5 minutes on USB, 720 otherwise.
    await t.req({ req: "card.temp", status: "usb:5;high:30;720" });
    await t.req({ req: "card.voltage", mode: "lipo" });
    t.power.set({ onUsb: true, volts: 5 });
    expect(t.module.sensors.temperature.minutes).toBe(5);
    t.power.set({ onUsb: false, volts: 3.7 });
    expect(t.module.sensors.temperature.minutes).toBe(720);
    expect(await t.module.request({ cmd: "card.temp", stop: true })).toBeUndefined();
    await clock.advance(24 * 60 * MINUTE);
    expect(notesOf(t, "_temp.qo")).toHaveLength(4);
  });

  it("keeps logging across a restart and asks for a sync of _temp.qo with sync", async () => {
    const { t, clock } = await bootInWorld();
    await t.req({ req: "card.temp", minutes: 10 });
    const again = await t.reboot();
    await clock.advance(25 * 60_000);
    expect(notesOf(again, "_temp.qo")).toHaveLength(2);
    await again.req({ req: "card.temp", sync: true });
    expect(again.module.notebox.syncRequests().has("_temp.qo")).toBe(true);
  });

  it.each([
    [{ minutes: 0 }, /minutes must be at least 1, or -1 to reset/],
    [{ status: "warm:5" }, /status "warm:5" is not a valid voltage-variable string/],
  ])("refuses %j", async (args, message) => {
    const { t } = await bootInWorld();
    expect((await t.req({ req: "card.temp", ...args })).err).toMatch(message);
  });
});

describe("card.temp on LoRa", () => {
  it("reads the temperature without an accelerometer, and is not 'off'", async () => {
    const { t } = await bootInWorld({ variant: "lora" });
    expect(Object.keys(await t.req({ req: "card.temp" })).sort()).toEqual(["calibration", "value"]);
  });
});

describe("card.illumination", () => {
  it("needs a light sensor on the I2C bus, and reads it in lux", async () => {
    const { t, world } = await bootInWorld();
    expect((await t.req({ req: "card.illumination" })).err).toBe("illumination sensor is not available");
    world.setLight(412.5);
    expect(await t.req({ req: "card.illumination" })).toEqual({ value: 412.5 });
    world.setLight(0);
    expect(await t.req({ req: "card.illumination" })).toEqual({});
  });
});
