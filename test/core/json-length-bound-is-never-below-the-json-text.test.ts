import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonLengthBound } from "../../core/json.js";

describe("jsonLengthBound", () => {
  it("is at least the length of the JSON text of any value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonLengthBound(value)).toBeGreaterThanOrEqual(JSON.stringify(value).length);
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.double(), (text, number) => {
        const value = { [text]: [text, number, undefined, null, true, { "": number }] };
        expect(jsonLengthBound(value)).toBeGreaterThanOrEqual(JSON.stringify(value).length);
      }),
      { numRuns: 2000 },
    );
    for (const edge of [-2.2250738585072014e-308, -Number.MAX_VALUE, -Number.MIN_VALUE, '\u0000\ud800"\\'])
      expect(jsonLengthBound(edge)).toBeGreaterThanOrEqual(JSON.stringify(edge).length);
  });
});
