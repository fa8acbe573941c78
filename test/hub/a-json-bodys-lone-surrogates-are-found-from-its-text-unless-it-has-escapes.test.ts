import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { holdsLoneSurrogate, parsedHoldsLoneSurrogate } from "../../hub/jsonSurrogates.js";

// The hub refuses a JSON body holding a lone surrogate. It reads that from the text when the text
// has no `\u` escape, and walks the parsed value only otherwise: the answer must be the walk's.
const near = fc.integer({ min: 0xd7fe, max: 0xe001 }).map((c) => String.fromCharCode(c));
const plain = fc.constantFrom("a", "é", "😀", " ", "u", "x");
/** Characters that may stand raw inside a JSON string: surrogates (lone or paired), others. */
const raw = fc.array(fc.oneof(near, plain), { maxLength: 8 }).map((cs) => cs.join(""));
/** The same, with escapes among them (a surrogate's, a backslash's, a quote's). */
const escaped = fc
  .array(
    fc.oneof(
      raw,
      fc.integer({ min: 0xd7fe, max: 0xe001 }).map((c) => `\\u${c.toString(16)}`),
      fc.constantFrom("\\\\", '\\"', "\\u0041", "\\n"),
    ),
    { maxLength: 5 },
  )
  .map((parts) => parts.join(""));
const text = fc.oneof(
  fc.tuple(raw, raw).map(([k, v]) => `{"${k}":"${v}","n":[1,"${v}"]}`),
  fc.tuple(escaped, escaped).map(([k, v]) => `{"${k}":["${v}"]}`),
  fc.jsonValue().map((v) => JSON.stringify(v)),
  fc
    .tuple(fc.string({ unit: "binary" }), fc.string({ unit: "binary" }))
    .map(([k, v]) => JSON.stringify({ [k]: v })),
);

describe("a JSON body's lone surrogates", () => {
  it("are found from its text exactly when walking its parsed value finds them", () => {
    let lone = 0;
    fc.assert(
      fc.property(text, (body) => {
        const value: unknown = JSON.parse(body);
        const walked = holdsLoneSurrogate(value);
        if (walked) lone++;
        expect(parsedHoldsLoneSurrogate(body, value)).toBe(walked);
      }),
      { numRuns: 5000, seed: 26 },
    );
    // Bodies with and without one were tried.
    expect(lone).toBeGreaterThan(100);
    expect(lone).toBeLessThan(4900);
  });

  it("are found raw or escaped, in keys and values, and a pair is no lone surrogate", () => {
    const check = (body: string) => parsedHoldsLoneSurrogate(body, JSON.parse(body));
    expect(check('{"a":"\ud83d"}')).toBe(true);
    expect(check('{"\udc00":1}')).toBe(true);
    expect(check('{"a":"\\ud83d"}')).toBe(true);
    expect(check('{"a":["\\udc00x"]}')).toBe(true);
    expect(check('{"a":"\ud83d\ude00","b":"\\ud83d\\ude00"}')).toBe(false);
    expect(check('{"a":"\\\\ud83d"}')).toBe(false);
  });
});
