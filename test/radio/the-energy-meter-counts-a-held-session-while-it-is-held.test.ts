import { describe, expect, it } from "vitest";
import { EnergyMeter, energyRates } from "../../firmware/power/EnergyMeter.js";
import { FakeClock } from "../../runtime/FakeClock.js";

const HOUR = 3_600_000;

describe("the energy meter", () => {
  it("counts a held (continuous) session's radio time until it closes, and nothing after", async () => {
    const clock = new FakeClock();
    let held = true;
    const meter = new EnergyMeter(clock, energyRates("cell"), undefined, () => held);
    const t0 = clock.now();
    await clock.advance(10_000);
    meter.session({ started: t0 + 5000, ended: t0 + 10_000, ok: true, held: true, bytes: 2000 });
    await clock.advance(HOUR);
    expect(meter.report().radioOnMs).toBe(5000 + HOUR);
    held = false;
    await clock.advance(HOUR);
    const report = meter.report();
    expect(report.radioOnMs).toBe(5000 + HOUR);
    expect(report.dataRadioOnMs).toBe(5000 + HOUR);
    expect(report.poweredMs).toBe(2 * HOUR + 10_000);
    expect(report.mah).toBeCloseTo(
      0.3 + ((5000 + HOUR) / HOUR) * 100 + 2 * 0.002 + ((2 * HOUR + 10_000) / HOUR) * 0.008,
      12,
    );
    expect(meter.sessionFields()).toEqual({
      hp_secs_total: 3605,
      hp_secs_data: 3605,
      hp_cycles_total: 1,
      hp_cycles_data: 1,
      power_mah: Math.round(report.mah * 1000) / 1000,
    });
  });

  it("continues from saved counters and ignores damaged ones; refuses a negative rate", () => {
    const clock = new FakeClock();
    const meter = new EnergyMeter(clock, energyRates("wifi"), {
      sessions: 4,
      idleMah: 1.5,
      radioMah: -3,
    } as never);
    expect(meter.report()).toMatchObject({ sessions: 4, idleMah: 1.5, radioMah: 0, mah: 1.5 });
    expect(() => energyRates("cell", { idleMa: -1 })).toThrow(/idleMa must be a number >= 0/);
  });
});
