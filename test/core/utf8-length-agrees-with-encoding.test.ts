import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { utf8Length } from "../../core/bytes.js";

const encoder = new TextEncoder();

describe("utf8Length", () => {
  it("is the length of the text's UTF-8 encoding, lone surrogates included", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (text) => {
        expect(utf8Length(text)).toBe(encoder.encode(text).length);
      }),
      { numRuns: 2000 },
    );
    for (const text of ["", "a", "é", "€", "😀", "\ud800", "\udc00", "\ud800a", "a\udbff", "\udc00\ud800"])
      expect(utf8Length(text)).toBe(encoder.encode(text).length);
  });
});
