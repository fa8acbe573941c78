import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  jsonBytesDepth,
  jsonTextDepth,
  jsonTooDeep,
  jsonValueDepth,
  MAX_JSON_DEPTH,
} from "../../core/jsonDepth.js";

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The obvious recursive measure (fine at the depths generated here): the reference. */
function reference(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + children.reduce<number>((deepest, child) => Math.max(deepest, reference(child)), 0);
}

/** What a limited measure must answer: the depth, or limit + 1 once the depth passes the limit. */
const limited = (depth: number, limit: number): number => (depth > limit ? limit + 1 : depth);

/** Keys and strings that look like structure: brackets, quotes and escapes inside strings. */
const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom("", "{", "}", "[", "]", '"', "\\", '\\"', "\\\\", '"}]', "[{", '{"a":[', "\u2028"),
);

/** A value nested `depth` levels below its top by wrapping `leaf` in arrays and objects. */
const nested = fc
  .record({
    leaf: fc.jsonValue({ maxDepth: 3 }),
    wrappers: fc.array(fc.oneof(fc.constant(null), tricky), { maxLength: 300 }),
    siblings: fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
  })
  .map(({ leaf, wrappers, siblings }) => {
    let value: unknown = leaf;
    for (const key of wrappers) {
      value = key === null ? [...siblings, value] : { [key]: value, [`${key}!`]: siblings };
    }
    return value;
  });

const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 8 }), nested, tricky);

describe("the JSON depth checker agrees with a recursive measure", () => {
  it("measures text, pretty-printed text and values as the reference does", () => {
    fc.assert(
      fc.property(anyJson, (value) => {
        const depth = reference(value);
        expect(jsonTextDepth(JSON.stringify(value))).toBe(depth);
        expect(jsonTextDepth(JSON.stringify(value, null, 2))).toBe(depth);
        expect(jsonBytesDepth(utf8(JSON.stringify(value)))).toBe(depth);
        expect(jsonValueDepth(value)).toBe(depth);
      }),
      { numRuns: 500 },
    );
  });

  it("stops at a limit with limit + 1, and agrees below it", () => {
    fc.assert(
      fc.property(anyJson, fc.nat({ max: 320 }), (value, limit) => {
        const depth = reference(value);
        expect(jsonTextDepth(JSON.stringify(value), limit)).toBe(limited(depth, limit));
        expect(jsonValueDepth(value, limit)).toBe(limited(depth, limit));
        expect(jsonTooDeep(JSON.stringify(value), limit)).toBe(depth > limit);
        expect(jsonBytesDepth(utf8(JSON.stringify(value)), limit)).toBe(limited(depth, limit));
        expect(jsonTooDeep(utf8(JSON.stringify(value)), limit)).toBe(depth > limit);
      }),
      { numRuns: 500 },
    );
  });

  it("never counts brackets inside strings", () => {
    fc.assert(
      fc.property(tricky, (text) => {
        expect(jsonTextDepth(JSON.stringify(text))).toBe(0);
        expect(jsonTextDepth(JSON.stringify([text, { [text]: text }]))).toBe(2);
        expect(jsonBytesDepth(utf8(JSON.stringify([text, { [text]: text }])))).toBe(2);
      }),
    );
  });

  it("draws the line at MAX_JSON_DEPTH levels", () => {
    const deep = (levels: number): string => "[".repeat(levels) + "]".repeat(levels);
    expect(MAX_JSON_DEPTH).toBe(100);
    expect(jsonTooDeep(deep(100))).toBe(false);
    expect(jsonTooDeep(deep(101))).toBe(true);
    expect(jsonTooDeep(`{"a":${deep(99)}}`)).toBe(false);
    expect(jsonTooDeep(`{"a":${deep(100)}}`)).toBe(true);
  });

  it("measures a million levels of text and values without overflowing the stack", () => {
    const levels = 1_000_000;
    const text = "[".repeat(levels) + "]".repeat(levels);
    expect(jsonTextDepth(text)).toBe(levels);
    expect(jsonTextDepth(text, MAX_JSON_DEPTH)).toBe(MAX_JSON_DEPTH + 1);
    let value: unknown = 0;
    for (let i = 0; i < levels; i++) value = { a: value };
    expect(jsonValueDepth(value)).toBe(levels);
  });

  it("gives text that is not JSON a number without failing", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        const depth = jsonTextDepth(text);
        expect(Number.isInteger(depth) && depth >= 0 && depth <= text.length).toBe(true);
        // Its bytes, invalid UTF-16 and all, measure as the text does.
        expect(jsonBytesDepth(Buffer.from(text, "utf8"))).toBe(depth);
      }),
    );
  });
});
