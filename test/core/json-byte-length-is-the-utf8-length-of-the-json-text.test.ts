import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonByteLength } from "../../core/json.js";

/** What the measure stands for: the bytes of the text JSON.stringify writes (0 when it writes none). */
function textBytes(value: unknown): number {
  const text = JSON.stringify(value) as string | undefined;
  return text === undefined ? 0 : Buffer.byteLength(text, "utf8");
}

describe("jsonByteLength", () => {
  it("is the UTF-8 length of the JSON text of any JSON value", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonByteLength(value)).toBe(textBytes(value));
      }),
      { numRuns: 3000 },
    );
  });

  it("counts what JSON.stringify leaves out, escapes and writes as null alike, for any text and number", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.oneof(
          fc.double(),
          fc.integer(),
          fc.maxSafeInteger(),
          fc.constantFrom(-0, 1e21, -1e16, 9999999999999998),
        ),
        (text, number) => {
          const value = {
            [text]: [text, number, undefined, null, true, false, () => 1, Symbol("s"), { "": number }],
            leftOut: undefined,
            fn: () => 1,
            [`${text}2`]: { a: [], b: {}, c: [[]] },
          };
          expect(jsonByteLength(value)).toBe(textBytes(value));
          expect(jsonByteLength(text)).toBe(textBytes(text));
          expect(jsonByteLength(number)).toBe(textBytes(number));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("writes what is not plain data by its own JSON text, and leaves out what JSON leaves out", () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: string,
      ) {}
    }
    const sparse: unknown[] = [1];
    sparse[3] = "é";
    const withProto = JSON.parse('{"__proto__":{"a":"ü"},"b":1}') as unknown;
    const cases: unknown[] = [
      new Date(0),
      { when: new Date(0), p: new Point(1, "ñ"), m: new Map([[1, 2]]) },
      { toJSON: () => ({ z: "😀" }) },
      Object.assign(Object.create(null) as object, { a: 1, b: [null] }),
      sparse,
      withProto,
      new Uint8Array([1, 2]),
      "\ud800 lone \udfff surrogates \u2028",
      undefined,
      () => 1,
      Symbol("s"),
      Number.NaN,
      -Infinity,
    ];
    for (const value of cases) expect(jsonByteLength(value)).toBe(textBytes(value));
  });

  it("throws what JSON.stringify throws: a cycle, a BigInt", () => {
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = { back: cycle };
    expect(() => jsonByteLength(cycle)).toThrow(TypeError);
    expect(() => jsonByteLength({ n: 1n })).toThrow(TypeError);
  });
});
