import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

describe("card.status", () => {
  it("on battery, with the time unknown and nothing configured, is {normal} and usb:false", async () => {
    const t = await bootTestModule();
    // card.status.rsp.notecard.api.json: `required: ["status", "usb"]`, so usb is sent when false.
    expect(await t.req({ req: "card.status" })).toEqual({ status: "{normal}", usb: false });
  });

  it("reports USB power from the power port as it changes", async () => {
    const t = await bootTestModule();
    t.power.onUsb = true;
    expect((await t.req({ req: "card.status" })).usb).toBe(true);
    t.power.onUsb = false;
    expect((await t.req({ req: "card.status" })).usb).toBe(false);
  });

  it("reports storage used as a whole percentage of the flash", async () => {
    const t = await bootTestModule({ capacity: 4000 });
    const percent = () => {
      const { used, capacity } = t.module.notebox.usage();
      return Math.round((used * 100) / capacity);
    };
    const before = percent(); // the identity record alone
    expect((await t.req({ req: "card.status" })).storage).toBe(before);
    await t.req({ req: "hub.set", product: "p".repeat(400) });
    expect(percent()).toBeGreaterThanOrEqual(before + 10);
    expect((await t.req({ req: "card.status" })).storage).toBe(percent());
  });

  it("reports the boot time once the time is known, not the current time", async () => {
    const t = await bootTestModule({ timeKnown: true });
    const bootEpoch = Math.floor(t.clock.now() / 1000);
    await t.clock.advance(90_000);
    expect((await t.req({ req: "card.status" })).time).toBe(bootEpoch);
  });

  it("reports the effective sync periods: configured ones in periodic mode, none in minimum", async () => {
    const t = await bootTestModule();
    await t.req({ req: "hub.set", mode: "periodic", outbound: 30, inbound: 120 });
    expect(await t.req({ req: "card.status" })).toMatchObject({ outbound: 30, inbound: 120 });
    await t.req({ req: "hub.set", mode: "minimum" });
    const status = await t.req({ req: "card.status" });
    expect(status.outbound).toBeUndefined();
    expect(status.inbound).toBeUndefined();
  });

  it("picks voltage-variable periods by the supply state of the card.voltage thresholds", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", mode: "lipo" });
    await t.req({
      req: "hub.set",
      mode: "periodic",
      outbound: 999,
      voutbound: "usb:5;high:60;normal:90;low:240;dead:0",
      vinbound: "high:120",
    });
    t.power.volts = 4.1; // high
    await t.clock.advance(16 * 60_000); // past the 15-minute average
    expect(await t.req({ req: "card.status" })).toMatchObject({ outbound: 60, inbound: 120 });
    t.power.volts = 3.3; // low
    await t.clock.advance(16 * 60_000);
    // vinbound names no "low": the plain inbound (unset, 0) applies.
    const low = await t.req({ req: "card.status" });
    expect(low.outbound).toBe(240);
    expect(low.inbound).toBeUndefined();
    t.power.set({ volts: 5, onUsb: true });
    expect((await t.req({ req: "card.status" })).outbound).toBe(5);
  });
});
