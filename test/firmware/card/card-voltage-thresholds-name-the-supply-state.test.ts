import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

const MINUTE = 60_000;

describe("card.voltage thresholds and value", () => {
  it("reports the value from the power port, its state under the default thresholds and the calibration", async () => {
    const t = await bootTestModule();
    expect(await t.req({ req: "card.voltage" })).toEqual({ mode: "normal", value: 3.9, calibration: 0.35 });
    t.power.volts = 2.4;
    expect((await t.req({ req: "card.voltage", now: true })).mode).toBe("dead");
  });

  it.each([
    ["default", "normal:2.5;dead:0", 3.9, "normal"],
    ["lipo", "usb:4.6;high:4.0;normal:3.5;low:3.2;dead:0", 3.9, "normal"],
    ["lipo", "usb:4.6;high:4.0;normal:3.5;low:3.2;dead:0", 4.7, "usb"],
    ["l91", "high:5.0;normal:4.5;low:0", 4.0, "low"],
    ["alkaline", "usb:4.6;high:4.2;normal:3.6;low:0", 4.3, "high"],
    ["tad", "usb:4.6;normal:3.2;low:0", 3.1, "low"],
    ["lic", "usb:4.6;high:3.8;normal:3.1;low:0", 3.8, "high"],
  ])("preset %s stands for %s (%d V is %s)", async (preset, thresholds, volts, state) => {
    const t = await bootTestModule();
    t.power.volts = volts;
    expect((await t.req({ req: "card.voltage", mode: preset, now: true })).mode).toBe(state);
    expect(await t.req({ req: "card.voltage", mode: "?" })).toEqual({ mode: thresholds });
  });

  it("takes a custom threshold string, reads it back as given, and keeps it across reboots", async () => {
    const t = await bootTestModule();
    t.power.volts = 3.9;
    expect((await t.req({ req: "card.voltage", mode: "usb:4.6;normal:3.5;dead:0" })).mode).toBe("normal");
    const again = await t.reboot();
    expect(await again.req({ req: "card.voltage", mode: "?" })).toEqual({
      mode: "usb:4.6;normal:3.5;dead:0",
    });
  });

  it("rejects a malformed threshold string without changing the thresholds", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", mode: "lipo" });
    for (const mode of [
      "usb",
      "normal:3.5;;dead:0",
      "normal:abc",
      "warm:3.5",
      "normal:3.5;normal:3",
      "normal:-1",
      "",
    ]) {
      const reply = await t.req({ req: "card.voltage", mode });
      expect(reply.err, mode).toMatch(/^card\.voltage: mode ".*" is neither a preset/);
      expect(reply.err).not.toMatch(/\{io\}/);
    }
    expect((await t.req({ req: "card.voltage", mode: "?" })).mode).toBe(
      "usb:4.6;high:4.0;normal:3.5;low:3.2;dead:0",
    );
  });

  it("says usb, and leaves out the uptime, while on USB power", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", mode: "lipo" });
    await t.clock.advance(20 * MINUTE);
    t.power.set({ volts: 5.1, onUsb: true });
    const reply = await t.req({ req: "card.voltage", now: true });
    expect(reply).toMatchObject({ mode: "usb", usb: true, value: 5.1 });
    expect(reply.minutes).toBeUndefined();
  });

  it("averages value over the last 15 minutes unless asked for now", async () => {
    const t = await bootTestModule();
    await t.clock.advance(30 * MINUTE);
    t.power.volts = 3.0;
    await t.clock.advance(5 * MINUTE);
    const averaged = (await t.req({ req: "card.voltage" })).value as number;
    expect(averaged).toBeCloseTo((3.9 * 10 + 3.0 * 5) / 15, 10);
    expect((await t.req({ req: "card.voltage", now: true })).value).toBe(3.0);
    expect((await t.req({ req: "card.voltage" })).minutes).toBe(35);
  });

  it("applies a calibration only with set, and reports values shifted by it", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "card.voltage", calibration: 0 })).calibration).toBe(0.35);
    const reply = await t.req({ req: "card.voltage", set: true, calibration: 0, now: true });
    expect(reply.calibration).toBeUndefined(); // zero is left out
    expect(reply.value).toBeCloseTo(3.55, 10);
    expect((await t.req({ req: "card.voltage", set: true })).err).toMatch(/calibration is required/);
    expect((await t.req({ req: "card.voltage", set: true, calibration: 7 })).err).toMatch(
      /calibration must be/,
    );
    expect((await t.req({ req: "card.voltage", set: true, calibration: 0.35 })).value).toBe(3.9);
  });

  it("takes its thresholds from the environment variable named by name, when that holds valid ones", async () => {
    const t = await bootTestModule();
    t.power.volts = 3.9;
    await t.req({ req: "card.voltage", name: "power_profile" });
    expect((await t.req({ req: "card.voltage" })).mode).toBe("normal");
    await t.req({ req: "env.default", name: "power_profile", text: "high:3.8;low:0" });
    expect((await t.req({ req: "card.voltage" })).mode).toBe("high");
    await t.req({ req: "env.default", name: "power_profile", text: "lipo" });
    expect(await t.req({ req: "card.voltage", mode: "?" })).toEqual({
      mode: "usb:4.6;high:4.0;normal:3.5;low:3.2;dead:0",
    });
    await t.req({ req: "env.default", name: "power_profile", text: "garbage" });
    expect((await t.req({ req: "card.voltage", mode: "?" })).mode).toBe("normal:2.5;dead:0");
    await t.req({ req: "card.voltage", name: "-" });
    await t.req({ req: "env.default", name: "power_profile", text: "lipo" });
    expect((await t.req({ req: "card.voltage", mode: "?" })).mode).toBe("normal:2.5;dead:0");
  });

  it("refuses to set thresholds on the extended-power module but still reports", async () => {
    const t = await bootTestModule({ variant: "cell+xp" });
    const refused = await t.req({ req: "card.voltage", mode: "lipo" });
    expect(refused.err).toMatch(/extended-power \(XP\) module \{not-supported\}/);
    expect(await t.req({ req: "card.voltage", mode: "?" })).toEqual({ mode: "normal:2.5;dead:0" });
    expect((await t.req({ req: "card.voltage" })).value).toBe(3.9);
  });

  it("validates the analysis arguments", async () => {
    const t = await bootTestModule();
    expect((await t.req({ req: "card.voltage", hours: 721 })).err).toMatch(/hours must be 1 to 720/);
    expect((await t.req({ req: "card.voltage", hours: 0 })).err).toMatch(/hours must be 1 to 720/);
    expect((await t.req({ req: "card.voltage", offset: -1 })).err).toMatch(/offset must be/);
    expect((await t.req({ req: "card.voltage", vmin: 4, vmax: 3 })).err).toBe(
      "card.voltage: vmin (4) must be below vmax (3)",
    );
    expect((await t.req({ req: "card.voltage", on: true, off: true })).err).toMatch(/\{incompatible\}/);
    expect((await t.req({ req: "card.voltage", hours: "all" })).err).toMatch(/\{io\}/);
    expect((await t.req({ req: "card.voltage", mode: 3 })).err).toMatch(/\{io\}/);
  });
});
