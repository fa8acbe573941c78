import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  DischargeCurve,
  parseDischarge,
  parseDischargeCsv,
  parseLinearDischarge,
} from "../../runtime/DischargeCurve.js";
import { Scenario } from "../../harness/Scenario.js";

const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

describe("a discharge curve from a CSV of time,volts", () => {
  it("reads any increasing rows back exactly, whatever the units, with or without a header", () => {
    const row = fc.record({
      n: fc.integer({ min: 1, max: 5000 }),
      unit: fc.constantFrom(...(Object.keys(UNITS) as (keyof typeof UNITS)[])),
      mv: fc.integer({ min: 0, max: 6000 }),
    });
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 30 }), fc.boolean(), (rows, header) => {
        let at = 0;
        const lines: string[] = header ? ["time,volts"] : [];
        const points: { ms: number; volts: number }[] = [];
        for (const r of rows) {
          at += r.n * UNITS[r.unit];
          // The time in its unit: at is a whole number of that unit only if every step was; use ms.
          lines.push(`${at}ms,${(r.mv / 1000).toFixed(3)}`);
          points.push({ ms: at, volts: r.mv / 1000 });
        }
        expect(parseDischargeCsv(lines.join("\n")).points).toEqual(points);
      }),
    );
  });

  it("takes units s, m, h and d, seconds without one, comments, blank lines and a trailing V", () => {
    const curve = parseDischargeCsv("# a LiPo\ntime,volts\n\n0,4.2V\n90,4.1\n30m,4.0\n12h,3.8\n2d,3.5\n");
    expect(curve.points.map((p) => p.ms)).toEqual([0, 90_000, 1_800_000, 43_200_000, 172_800_000]);
    expect(curve.voltsAt(21_600_000 + 1_800_000 / 2)).toBeGreaterThan(3.8);
  });

  it("names the line of any bad row", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 8 }),
        fc.constantFrom("abc,3.3", "10,volts?", "10", "10,3.3,1", "5x,3.0", "-1,3.3"),
        (good, bad) => {
          const rows = Array.from({ length: good }, (_, i) => `${i}h,4.0`);
          const text = ["time,volts", ...rows, bad].join("\n");
          expect(() => parseDischargeCsv(text)).toThrow(new RegExp(`^line ${good + 2}: `));
        },
      ),
    );
  });

  it("refuses times that do not increase, and a file with no rows", () => {
    expect(() => parseDischargeCsv("0,4\n1h,3.9\n1h,3.8")).toThrow(/^line 3: times must increase/);
    expect(() => parseDischargeCsv("time,volts\n# nothing\n")).toThrow(/no time,volts rows/);
  });
});

describe("a linear discharge model", () => {
  it("goes in a straight line from FROM to TO over the duration and holds TO after it", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 2000, max: 5500 }),
        fc.integer({ min: 0, max: 2000 }),
        fc.integer({ min: 1, max: 90 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (fromMv, dropMv, days, f) => {
          const from = fromMv / 1000;
          const to = (fromMv - dropMv) / 1000;
          const curve = parseLinearDischarge(`linear:${from}-${to}/${days}d`);
          const ms = days * 86_400_000;
          expect(curve.durationMs).toBe(ms);
          expect(curve.voltsAt(f * ms)).toBeCloseTo(from + (to - from) * f, 9);
          expect(curve.voltsAt(ms * 2)).toBe(to);
        },
      ),
    );
  });

  it("explains how to write one when it cannot read it", () => {
    expect(() => parseDischarge("linear:4.2/30d")).toThrow(
      /write linear:FROM-TO\/DURATION, e\.g\. linear:4\.2-3\.3\/30d/,
    );
    expect(() => parseDischarge("linear:4.2-3.3/30y")).toThrow(/unknown time unit y/);
    expect(() => new DischargeCurve([])).toThrow(/at least one point/);
  });
});

describe("a scenario plays a discharge and sets the supply", () => {
  it("card.voltage's mode follows the curve on the fake clock, and USB power shows as usb", async () => {
    const scenario = await Scenario.start({ variant: "cell" });
    try {
      const req = async (r: Record<string, unknown>) => (await scenario.module.request(r))!;
      await req({ req: "card.voltage", mode: "lipo" });
      scenario.power.discharge("linear:4.2-3.1/10d");
      await scenario.advance(1000);
      expect(scenario.power.volts).toBe(4.2);
      expect((await req({ req: "card.voltage", now: true }))["mode"]).toBe("high");
      await scenario.advance(5 * 86_400_000);
      expect(scenario.power.volts).toBe(3.65);
      expect((await req({ req: "card.voltage", now: true }))["mode"]).toBe("normal");
      await scenario.advance(5 * 86_400_000);
      expect(scenario.power.volts).toBe(3.1);
      expect((await req({ req: "card.voltage", now: true }))["mode"]).toBe("dead");
      scenario.power.supply({ source: "usb", volts: 5 });
      const usb = await req({ req: "card.voltage", now: true });
      expect(usb).toMatchObject({ mode: "usb", usb: true });
      // The idle charge of ten days at the cell variant's 0.008 mA.
      expect(scenario.energy().idleMah).toBeCloseTo(10 * 24 * 0.008, 3);
      // The radio API of the scenario.
      scenario.radio.signal("fair");
      scenario.radio.outage({ what: "hub", forMs: 1000 });
      expect(scenario.radio.state).toMatchObject({ bars: 2, registered: true, hubReachable: false });
      await scenario.advance(1000);
      expect(scenario.radio.online).toBe(true);
      scenario.radio.failHub(2);
      scenario.radio.latency(300);
      expect(scenario.radio.conditions.connectFailuresLeft).toBe(2);
      expect(scenario.radio.state.latencyMs).toBe(300);
    } finally {
      await scenario.close();
    }
  });
});
