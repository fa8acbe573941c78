import fc from "fast-check";
import stableStringify from "fast-json-stable-stringify";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../core/json.js";

describe("canonicalJson", () => {
  it("writes any JSON value as fast-json-stable-stringify does (stored superblocks and event UIDs keep their text)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(stableStringify(value));
      }),
      { numRuns: 2000 },
    );
    // Keys that sort differently by code unit than by code point, __proto__ as a member, -0.
    const tricky = JSON.parse(
      '{"\\ud83d\\ude00":1,"\\uffff":2,"__proto__":{"b":[1,{"z":0,"a":-0}]},"":null}',
    );
    expect(canonicalJson(tricky)).toBe(stableStringify(tricky));
  });

  it("does not depend on the order members were written in, and leaves undefined out as JSON.stringify does", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (object) => {
        const reversed = Object.fromEntries(Object.entries(object).reverse());
        expect(canonicalJson(reversed)).toBe(canonicalJson(object));
        expect(JSON.parse(canonicalJson(object))).toEqual(JSON.parse(JSON.stringify(object)));
      }),
    );
    expect(canonicalJson({ b: undefined, a: [undefined, 1] })).toBe('{"a":[null,1]}');
    expect(canonicalJson(undefined)).toBe("null");
  });
});
