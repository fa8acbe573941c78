import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Fields, isPlainNote, readNote } from "../../protocol/fields.js";

// Readers check a batch's notes with `isPlainNote` first and only read field by field (naming
// the fault) what it does not take: it must take nothing the field-by-field reader refuses, and
// take the plain notes a module sends.
const parent = new Fields({}, "", (text) => new Error(text));
const refuses = (value: unknown): boolean => {
  try {
    readNote(parent, value, "notes[0]");
    return false;
  } catch {
    return true;
  }
};

/** Values a member may hold: right and wrong types, edges of the ranges, absent. */
const anyMember = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.boolean(),
  fc.constant(true),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0, 1.5, -0.5, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, NaN, Infinity),
  fc.string({ maxLength: 3 }),
  fc.constantFrom("", "1", "a\u001fb", "x".repeat(64), "x".repeat(65), "x".repeat(257), "QUJD", "!!"),
  fc.constant([]),
  fc.dictionary(fc.string({ maxLength: 2 }), fc.integer(), { maxKeys: 2 }),
  fc.record({ lat: fc.double(), lon: fc.double(), time: fc.integer() }),
);
const KEYS = [
  "id",
  "body",
  "payload",
  "when",
  "updates",
  "endpoint",
  "deleted",
  "change",
  "history",
  "conflicts",
  "where",
];
const plainNote = fc.record(
  {
    id: fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/),
    body: fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 5 }),
    when: fc.double({ min: 0, max: 4e9, noNaN: true }),
    updates: fc.nat(),
    endpoint: fc.constantFrom("", "1"),
    deleted: fc.constant(true as const),
    change: fc.nat(),
  },
  { requiredKeys: ["id", "when", "updates", "endpoint", "change"] },
);

/** Anything: random members, a plain note with one member changed to anything, not an object. */
const noteLike = fc.oneof(
  fc.record(Object.fromEntries(KEYS.map((k) => [k, anyMember])), { requiredKeys: [] }),
  fc
    .tuple(plainNote, fc.constantFrom(...KEYS), anyMember)
    .map(([note, key, value]) => ({ ...note, [key]: value })),
  anyMember,
);
describe("a plain note taken in one pass", () => {
  it("is never one the field-by-field reader refuses", () => {
    let refused = 0;
    fc.assert(
      fc.property(noteLike, (value) => {
        if (isPlainNote(value)) expect(refuses(value)).toBe(false);
        else refused++;
      }),
      { numRuns: 5000, seed: 26 },
    );
    // Both answers were tried.
    expect(refused).toBeGreaterThan(100);
    expect(refused).toBeLessThan(4900);
  });

  it("is every note a module sends without payload, history, conflicts or place", () => {
    fc.assert(
      fc.property(plainNote, (note) => {
        expect(refuses(note)).toBe(false);
        expect(isPlainNote(JSON.parse(JSON.stringify(note)))).toBe(true);
      }),
      { numRuns: 2000, seed: 26 },
    );
  });

  it("leaves to the field-by-field reader a note with anything more, or anything wrong", () => {
    const base = { id: "1", body: { a: 1 }, when: 5, updates: 0, endpoint: "", change: 3 };
    expect(isPlainNote(base)).toBe(true);
    for (const more of [
      { payload: "QUJD" },
      { history: { "": 0 } },
      { conflicts: [] },
      { where: { lat: 1, lon: 2, time: 3 } },
      { id: "a\u001fb" },
      { when: -1 },
      { updates: 1.5 },
      { deleted: false },
      { body: [] },
      { endpoint: "x".repeat(65) },
    ])
      expect(isPlainNote({ ...base, ...more })).toBe(false);
  });
});
