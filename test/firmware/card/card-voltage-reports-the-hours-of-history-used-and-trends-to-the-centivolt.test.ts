// Source: blues/notecard-schema card.voltage.rsp.notecard.api.json: `hours` is "the number of
// hours of voltage history actually used in the analysis"; its samples give every trend figure
// to the hundredth of a volt (vmin 3.2, vmax 4.1, vavg 3.75, daily -0.05, weekly -0.3, monthly
// -0.8) while `value` keeps full precision (5.112190219747135).
import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

const HOUR = 3_600_000;

describe("card.voltage hours (notecard-schema card.voltage.rsp: hours of history actually used)", () => {
  it("is 1 seconds after boot, not the 720-hour window", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", on: true });
    await t.clock.advance(5_000);
    const reply = await t.req({ req: "card.voltage" });
    expect(reply.hours).toBe(1);
    expect(reply.vavg).toBe(3.9);
  });

  it("grows with the history and stops at the window asked for", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", on: true });
    await t.clock.advance(30 * HOUR);
    expect((await t.req({ req: "card.voltage" })).hours).toBe(30);
    expect((await t.req({ req: "card.voltage", hours: 24 })).hours).toBe(24);
    await t.clock.advance(800 * HOUR);
    expect((await t.req({ req: "card.voltage" })).hours).toBe(720);
  });

  it("leaves out time on USB power, which has no readings", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", on: true });
    await t.clock.advance(3 * HOUR);
    t.power.set({ volts: 5, onUsb: true });
    await t.clock.advance(5 * HOUR);
    expect((await t.req({ req: "card.voltage" })).hours).toBe(3);
  });

  it("counts only hours since trends were turned on", async () => {
    const t = await bootTestModule();
    await t.clock.advance(10 * HOUR);
    await t.req({ req: "card.voltage", on: true });
    await t.clock.advance(2 * HOUR);
    expect((await t.req({ req: "card.voltage" })).hours).toBe(2);
  });
});

describe("card.voltage trend figures (notecard-schema card.voltage.rsp samples: hundredths of a volt)", () => {
  it("rounds averages and changes to the hundredth, and keeps value as measured", async () => {
    const t = await bootTestModule();
    t.power.volts = 3.9;
    await t.req({ req: "card.voltage", on: true });
    // Readings whose average is not exact in binary floating point.
    for (const volts of [3.7, 4.1, 3.9, 3.8, 4.0, 3.9]) {
      t.power.volts = volts;
      await t.clock.advance(HOUR);
    }
    t.power.volts = 3.912345678;
    const reply = await t.req({ req: "card.voltage", now: true });
    expect(reply.vavg).toBe(3.9);
    expect(reply.vmin).toBe(3.7);
    expect(reply.vmax).toBe(4.1);
    // value is the measurement itself, not a trend figure: not rounded.
    expect(Math.round((reply.value as number) * 100) / 100).not.toBe(reply.value);
    for (const field of ["vmin", "vmax", "vavg"] as const) {
      const figure = reply[field] as number;
      expect(Math.round(figure * 100) / 100, field).toBe(figure);
    }
  });

  it("rounds daily, weekly and monthly changes to the hundredth", async () => {
    const t = await bootTestModule();
    t.power.volts = 4.0;
    await t.req({ req: "card.voltage", on: true });
    for (let hour = 1; hour <= 31 * 24; hour++) {
      await t.clock.advance(HOUR);
      t.power.volts = Math.round((4.0 - hour * 0.0013) * 1e6) / 1e6;
    }
    const reply = await t.req({ req: "card.voltage" });
    // -0.0312, -0.2184 and -0.936 V of change.
    expect(reply).toMatchObject({ daily: -0.03, weekly: -0.22, monthly: -0.94 });
  });
});
