import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { openLocationCode } from "../../core/openLocationCode.js";

describe("openLocationCode", () => {
  it("gives the specification's examples", () => {
    expect(openLocationCode(47.36559, 8.524997)).toBe("8FVC9G8F+6X");
    expect(openLocationCode(20.3700625, 2.7821875)).toBe("7FG49QCJ+2V");
    expect(openLocationCode(-41.2730625, 174.7859375)).toBe("4VCPPQGP+Q9");
    // The north pole is in the cell below it; the south-west corner is the first cell.
    expect(openLocationCode(90, 1)).toBe("CFX3X2X2+X2");
    expect(openLocationCode(-90, -180)).toBe("22222222+22");
    // A value that is exact in decimal but not in binary still lands in its own cell.
    expect(openLocationCode(51.5, -0.12)).toBe("9C3XGV2J+22");
  });

  it("is ten digits of its alphabet with + after the eighth, clips latitude and wraps longitude", () => {
    const lat = fc.double({ min: -90, max: 90, noNaN: true });
    const lon = fc.double({ min: -180, max: 179.9999, noNaN: true });
    fc.assert(
      fc.property(lat, lon, fc.integer({ min: -3, max: 3 }), (la, lo, turns) => {
        const code = openLocationCode(la, lo);
        expect(code).toMatch(/^[2-9CFGHJMPQRVWX]{8}\+[2-9CFGHJMPQRVWX]{2}$/);
        expect(openLocationCode(la, lo + turns * 360).slice(0, 6)).toBe(code.slice(0, 6));
        expect(openLocationCode(la > 0 ? 90 + la : -90 + la, lo).slice(0, 1)).toBe(la > 0 ? "C" : "2");
      }),
      { numRuns: 500 },
    );
  });
});
