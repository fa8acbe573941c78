import { describe, expect, it } from "vitest";
import { bootTestModule } from "../../support/moduleFixture.js";

const HOUR = 3_600_000;

describe("card.voltage trends", () => {
  it("reports no trend fields until trends are turned on", async () => {
    const t = await bootTestModule();
    await t.clock.advance(48 * HOUR);
    const reply = await t.req({ req: "card.voltage" });
    for (const field of ["vmin", "vmax", "vavg", "daily", "weekly", "monthly", "hours", "on"])
      expect(reply[field], field).toBeUndefined();
  });

  it("computes time-weighted min, max and average of the supply since on:true", async () => {
    const t = await bootTestModule();
    t.power.volts = 4.2; // before trends were on: not counted
    await t.clock.advance(5 * HOUR);
    t.power.volts = 4.0;
    expect((await t.req({ req: "card.voltage", on: true })).on).toBe(true);
    await t.clock.advance(3 * HOUR);
    t.power.volts = 3.6;
    await t.clock.advance(1 * HOUR);
    const reply = await t.req({ req: "card.voltage", now: true });
    // hours: the four hours of history since on:true (not the 720-hour window).
    expect(reply).toMatchObject({ on: true, hours: 4, vmin: 3.6, vmax: 4.0 });
    expect(reply.vavg).toBe(3.9); // (4.0 * 3 + 3.6) / 4, to the hundredth of a volt
  });

  it("keeps trends on across a reboot and leaves out readings outside vmin..vmax and on USB", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", on: true });
    const again = await t.reboot();
    again.power.volts = 3.7;
    await again.clock.advance(2 * HOUR);
    again.power.set({ volts: 5.0, onUsb: true });
    await again.clock.advance(2 * HOUR);
    again.power.set({ volts: 2.0, onUsb: false });
    await again.clock.advance(1 * HOUR);
    const reply = await again.req({ req: "card.voltage", vmin: 2.5 });
    expect(reply).toMatchObject({ on: true, vmin: 3.7, vmax: 3.7, vavg: 3.7 });
    const wide = await again.req({ req: "card.voltage", vmin: 1.5 });
    expect(wide).toMatchObject({ vmin: 2.0, vmax: 3.7 });
    expect(wide.vavg).toBe(3.13); // (3.7 * 2 + 2.0) / 3, to the hundredth of a volt
  });

  it("reports daily, weekly and monthly changes of the hourly moving average when the window covers them", async () => {
    const t = await bootTestModule();
    t.power.volts = 4.0;
    await t.req({ req: "card.voltage", on: true });
    // Lose 0.01 V an hour for 31 days.
    for (let hour = 1; hour <= 31 * 24; hour++) {
      await t.clock.advance(HOUR);
      t.power.volts = Math.round((4.0 - hour * 0.001) * 1e6) / 1e6;
    }
    const reply = await t.req({ req: "card.voltage" });
    // -0.024, -0.168 and -0.72 V, to the hundredth of a volt.
    expect(reply.daily).toBe(-0.02);
    expect(reply.weekly).toBe(-0.17);
    expect(reply.monthly).toBe(-0.72);
    const day = await t.req({ req: "card.voltage", hours: 24 });
    expect(day.daily).toBe(-0.02);
    expect(day.weekly).toBeUndefined();
    expect(day.hours).toBe(24);
  });

  it("looks back offset hours before the analysis window", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", on: true });
    await t.clock.advance(10 * HOUR);
    t.power.volts = 3.0;
    await t.clock.advance(2 * HOUR);
    const recent = await t.req({ req: "card.voltage", hours: 1 });
    expect(recent).toMatchObject({ vmin: 3.0, vmax: 3.0 });
    const earlier = await t.req({ req: "card.voltage", hours: 5, offset: 3 });
    expect(earlier).toMatchObject({ vmin: 3.9, vmax: 3.9, hours: 5 });
  });

  it("stops with off:true", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", on: true });
    await t.clock.advance(HOUR);
    const reply = await t.req({ req: "card.voltage", off: true });
    expect(reply.on).toBeUndefined();
    expect(reply.vavg).toBeUndefined();
  });

  it("keeps bounded history however long it runs and however often the supply changes", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", on: true });
    await t.clock.advance(1000 * HOUR);
    expect(t.module.voltage.retained).toEqual({ points: 1, hours: 723 });
    for (let i = 0; i < 2000; i++) {
      t.power.volts = i % 2 ? 3.7 : 3.9;
      await t.clock.advance(HOUR);
    }
    expect(t.module.voltage.retained.hours).toBe(723);
    expect(t.module.voltage.retained.points).toBeLessThanOrEqual(2);
    const reply = await t.req({ req: "card.voltage" });
    expect(reply.vavg).toBeCloseTo(3.8, 10);
    // A supply scripted in 100 ms steps for an hour: the recent tier is thinned, not grown.
    for (let i = 0; i < 36_000; i++) {
      t.power.volts = 3.5 + (i % 100) / 1000;
      await t.clock.advance(100);
    }
    expect(t.module.voltage.retained.points).toBeLessThanOrEqual(4096);
    expect((await t.req({ req: "card.voltage", hours: 1 })).vavg).toBe(3.55); // 3.5495, rounded
  });

  it("analyses hourly readings: a dip inside an hour counts by its share of that hour", async () => {
    const t = await bootTestModule();
    await t.req({ req: "card.voltage", on: true });
    await t.clock.advance(HOUR / 2);
    t.power.volts = 3.1;
    await t.clock.advance(HOUR / 4);
    t.power.volts = 3.9;
    await t.clock.advance(HOUR / 4 + HOUR);
    const reply = await t.req({ req: "card.voltage" });
    expect(reply.vmin).toBeCloseTo(3.7, 10); // (3.9 * 3 + 3.1) / 4 in the first hour
    expect(reply.vmax).toBe(3.9);
  });
});
