import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonRoundTrip } from "../../core/json.js";

// The in-process hub link hands each end a copy of a message, made as parsing its JSON text would
// make it: the same members in the same order, nothing shared with the original.
const parsed = (value: unknown): unknown => JSON.parse(JSON.stringify(value) as string) as unknown;

function expectSameAsParsed(value: unknown): void {
  const copy = jsonRoundTrip(value);
  const expected = parsed(value);
  expect(copy).toStrictEqual(expected);
  expect(JSON.stringify(copy)).toBe(JSON.stringify(expected));
}

function objectsOf(value: unknown, out: Set<object> = new Set()): Set<object> {
  if (typeof value === "object" && value !== null && !out.has(value)) {
    out.add(value);
    for (const member of Object.values(value)) objectsOf(member, out);
  }
  return out;
}

class Reading {
  constructor(
    readonly temp: number,
    readonly unit = "C",
  ) {}
}

describe("jsonRoundTrip", () => {
  it("gives any JSON value back as parsing its text would, sharing no object with it", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expectSameAsParsed(value);
        const copy = jsonRoundTrip(value);
        const originals = objectsOf(value);
        for (const object of objectsOf(copy)) expect(originals.has(object)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it("leaves out or nulls what JSON.stringify does, and sends what is not plain data through its text", () => {
    const anything = fc.anything({
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true,
      withObjectString: true,
    });
    fc.assert(
      fc.property(anything, (value) => {
        let expected: unknown;
        try {
          expected = parsed(value);
        } catch {
          return; // a value JSON.stringify writes as undefined or refuses: checked below
        }
        expect(jsonRoundTrip(value)).toStrictEqual(expected);
      }),
      { numRuns: 1000 },
    );
    const odd = JSON.parse('{"__proto__":{"x":1},"b":2}') as Record<string, unknown>;
    Object.assign(odd, {
      zero: -0,
      list: [undefined, () => 1, Symbol("s"), NaN, -Infinity, -0],
      gone: undefined,
      fn: () => 1,
      when: new Date(0),
      reading: new Reading(21.5),
      custom: { toJSON: () => ({ as: "text" }) },
      bare: Object.assign(Object.create(null) as object, { a: 1 }),
      10: "index first",
    });
    expectSameAsParsed(odd);
    const copy = jsonRoundTrip(odd) as Record<string, unknown>;
    expect(Object.keys(copy)).toEqual(Object.keys(parsed(odd) as object));
    expect(Object.is(copy["zero"], 0)).toBe(true);
    expect(Object.getPrototypeOf(copy["bare"])).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value).toEqual({ x: 1 });
  });

  it("refuses what JSON.stringify refuses, with its error", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle["self"] = { back: cycle };
    expect(() => jsonRoundTrip(cycle)).toThrow(TypeError);
    expect(() => jsonRoundTrip({ big: 1n })).toThrow(TypeError);
  });
});
