import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeUtf8 } from "../../core/bytes.js";

const encoder = new TextEncoder();
const same = (text: string) => {
  const bytes = encodeUtf8(text);
  const expected = encoder.encode(text);
  expect(bytes).toBeInstanceOf(Uint8Array);
  expect(bytes.byteOffset).toBe(0);
  expect(bytes.buffer.byteLength).toBe(expected.length);
  expect(Array.from(bytes)).toEqual(Array.from(expected));
};

describe("encodeUtf8", () => {
  it("gives TextEncoder's bytes for any text, short or long, ASCII or not, lone surrogates included", () => {
    fc.assert(fc.property(fc.string({ unit: "binary" }), same), { numRuns: 2000 });
    fc.assert(fc.property(fc.string({ unit: "binary-ascii", maxLength: 80 }), same), { numRuns: 2000 });
    for (const text of [
      "",
      "a",
      "\u007f",
      "\u0080",
      "é",
      "€",
      "😀",
      "\ud800",
      "\udc00",
      "a\udbff",
      "x".repeat(64),
    ])
      same(text);
    same(`${"x".repeat(63)}é`);
    same("x".repeat(65));
  });

  it("gives each call an array of its own", () => {
    const a = encodeUtf8("{}");
    const b = encodeUtf8("{}");
    a[0] = 0;
    expect(b[0]).toBe("{".charCodeAt(0));
  });
});
