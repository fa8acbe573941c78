import fc from "fast-check";
import stableStringify from "fast-json-stable-stringify";
import { describe, expect, it, vi } from "vitest";
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

  it("writes objects of one layout after another, nested ones and other orders between them, as the package does", () => {
    const keys = ["temp", "humidity", "seq", "site", "a", "__proto__"];
    const member = fc.oneof(fc.jsonValue({ maxDepth: 1 }), fc.constant(undefined));
    const object = fc
      .tuple(fc.shuffledSubarray(keys, { minLength: 1 }), fc.array(member, { minLength: 6, maxLength: 6 }))
      .map(([names, values]) => {
        const out: Record<string, unknown> = {};
        names.forEach((name, i) => Object.defineProperty(out, name, { value: values[i], enumerable: true }));
        return out;
      });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(object, fc.record({ inner: object, list: fc.array(object) }))),
        (bodies) => {
          for (const body of bodies) expect(canonicalJson(body)).toBe(stableStringify(body));
          expect(canonicalJson(bodies)).toBe(stableStringify(bodies));
        },
      ),
      { numRuns: 500 },
    );
  });

  it("sorts a batch's bodies of one layout and writes their keys' JSON once, not once a body", () => {
    const bodies = Array.from({ length: 100 }, (_, i) => ({
      temp: 20 + i / 10,
      humidity: 40,
      seq: i,
      site: "s",
    }));
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      const texts = bodies.map((body) => canonicalJson(body));
      expect(texts[7]).toBe('{"humidity":40,"seq":7,"site":"s","temp":20.7}');
      const keyCalls = stringify.mock.calls.filter(([value]) => value === "temp" || value === "seq");
      expect(keyCalls.length).toBe(2);
    } finally {
      stringify.mockRestore();
    }
  });
});
