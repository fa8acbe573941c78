import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Note } from "../../../firmware/storage/Note.js";
import { Notefile } from "../../../firmware/storage/Notefile.js";
import { notefileKind } from "../../../core/NotefileKind.js";
import { Template, type TemplateDefinition } from "../../../firmware/storage/Template.js";
import { TemplateNoteCodec } from "../../../firmware/storage/TemplateNoteCodec.js";
import type { JsonObject } from "../../../core/json.js";

/** A type hint together with a generator of values that fit it. */
interface Hinted {
  hint: unknown;
  value: fc.Arbitrary<unknown>;
  /** Checks a stored value against what was put in, independently of the codec. */
  check: (input: unknown, output: unknown) => void;
}

const exact = (input: unknown, output: unknown) => expect(output).toEqual(Object.is(input, -0) ? 0 : input);

function intHint(size: number, signed: boolean): Hinted {
  const bits = BigInt(8 * size);
  // Doubles above 2^53 are rounded; keep the generated range inside what rounds to a fitting value.
  const top = size >= 7 ? 2n ** (bits - (signed ? 2n : 1n)) : 2n ** (bits - (signed ? 1n : 0n)) - 1n;
  const bottom = signed ? -top : 0n;
  return {
    hint: (signed ? 10 : 20) + size,
    value: fc.bigInt({ min: bottom, max: top }).map(Number),
    check: exact,
  };
}

const float16: Hinted = {
  hint: 12.1,
  value: fc.double({ min: -65000, max: 65000, noNaN: true }),
  check: (input, output) => {
    const x = input as number;
    const y = output as number;
    // Half precision: 11 significant bits for normals, steps of 2^-24 below 2^-14. The value
    // read back is the shortest decimal of the stored half, so allow a whole step, not half.
    const tolerance = Math.abs(x) < 2 ** -14 ? 2 ** -24 : Math.abs(x) * 2 ** -10;
    expect(Math.abs(y - x)).toBeLessThanOrEqual(tolerance);
  },
};
const float32: Hinted = {
  hint: 14.1,
  value: fc.double({ min: -3e38, max: 3e38, noNaN: true }),
  check: (input, output) => expect(Math.fround(output as number)).toBe(Math.fround(input as number) || 0),
};
const float64: Hinted = {
  hint: 18.1,
  value: fc.double({ noNaN: true, noDefaultInfinity: true }),
  check: (input, output) => expect(output).toBe(input),
};
const bool: Hinted = { hint: true, value: fc.boolean(), check: exact };
const varString: Hinted = {
  hint: "text",
  value: fc.string({ unit: "binary", maxLength: 40 }),
  check: exact,
};
const fixedString = (n: number): Hinted => ({
  hint: String(n),
  value: fc.string({ unit: "binary", maxLength: 2 * n }),
  check: (input, output) => {
    const inBytes = new TextEncoder().encode(input as string);
    const outBytes = new TextEncoder().encode(output as string);
    expect(outBytes.length).toBeLessThanOrEqual(n);
    // A prefix of the input cut at a character boundary, without trailing NULs.
    expect(Buffer.from(inBytes.subarray(0, outBytes.length)).equals(Buffer.from(outBytes))).toBe(true);
    const whole = inBytes.length <= n && !(input as string).endsWith("\u0000");
    if (whole) expect(output).toBe(input);
  },
});

const scalar: fc.Arbitrary<Hinted> = fc.oneof(
  fc.constant(bool),
  fc.constantFrom(...[1, 2, 3, 4, 5, 6, 7, 8].flatMap((s) => [intHint(s, true), intHint(s, false)])),
  fc.constantFrom(float16, float32, float64),
  fc.constant(varString),
  fc.integer({ min: 1, max: 12 }).map(fixedString),
);

const numericScalar = fc.oneof(
  fc.constantFrom(...[1, 2, 4, 8].map((s) => intHint(s, true))),
  fc.constantFrom(float16, float32, float64),
);

const { hinted } = fc.letrec<{ hinted: Hinted }>((tie) => ({
  hinted: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    // variable-length array of one numeric type
    numericScalar.map((e): Hinted => ({
      hint: [e.hint],
      value: fc.array(e.value, { maxLength: 5 }),
      check: (input, output) => {
        expect((output as unknown[]).length).toBe((input as unknown[]).length);
        (input as unknown[]).forEach((v, i) => e.check(v, (output as unknown[])[i]));
      },
    })),
    // fixed list of elements (two or more, or a single non-numeric one)
    fc.array(tie("hinted") as fc.Arbitrary<Hinted>, { minLength: 2, maxLength: 4 }).map((items): Hinted => ({
      hint: items.map((i) => i.hint),
      value: fc.tuple(...items.map((i) => i.value)),
      check: (input, output) =>
        items.forEach((item, k) => item.check((input as unknown[])[k], (output as unknown[])[k])),
    })),
    objectOf(tie("hinted") as fc.Arbitrary<Hinted>),
  ),
}));

function objectOf(field: fc.Arbitrary<Hinted>): fc.Arbitrary<Hinted> {
  return fc
    .uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 6 }), field), {
      maxLength: 5,
      selector: ([k]) => k,
    })
    .map((entries): Hinted => ({
      hint: Object.fromEntries(entries.map(([k, f]) => [k, f.hint])),
      value: fc.record(Object.fromEntries(entries.map(([k, f]) => [k, f.value]))),
      check: (input, output) => {
        for (const [k, f] of entries) f.check((input as JsonObject)[k], (output as JsonObject)[k]);
      },
    }));
}

/** A template and a body that fits it. */
const templatedBody = objectOf(hinted).chain((t) =>
  t.value.map((body) => ({ template: t, body: body as JsonObject })),
);

/** Drops the members omit-empty would, to compare a non-full note with its input. */
function withoutEmpty(value: unknown): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === false || v === 0 || v === "") continue;
    out[k] = withoutEmpty(v);
  }
  return out;
}

describe("the template codec round-trips any value that fits the template", () => {
  it("stores and reads back every fitting body exactly as the template keeps it", () => {
    fc.assert(
      fc.property(templatedBody, fc.boolean(), ({ template, body }, full) => {
        const definition: TemplateDefinition = { body: template.hint as JsonObject };
        const compiled = Template.compile(definition);
        const fitted = compiled.fit(body, true, 0).body!;
        template.check(body, fitted);

        const file = new Notefile("p.dbx", notefileKind("p.dbx")!, {
          ctr: 1,
          templates: { "7": definition },
        });
        const kept = full ? fitted : compiled.fit(body, false, 0).body!;
        if (!full) expect(kept).toEqual(withoutEmpty(fitted));
        const note: Note = { id: "n", template: 7, change: 1, updates: 0, time: 0, body: kept };
        const codec = new TemplateNoteCodec();
        const bytes = codec.encode(file, note);
        expect(bytes[0]).toBe(0xb1);
        expect(codec.decode(file, "n", bytes)).toEqual(note);
        // Fitting is stable: a stored body fits its template unchanged.
        expect(compiled.fit(kept, full, 0).body).toEqual(kept);
      }),
      { numRuns: 400 },
    );
  });

  it("round-trips the note's own fields: time, updates, change, payload, sync state, deletion", () => {
    const definition: TemplateDefinition = { body: { a: 11 }, length: 16 };
    const file = new Notefile("p.qo", notefileKind("p.qo")!, { ctr: 1, templates: { "1": definition } });
    const codec = new TemplateNoteCodec();
    fc.assert(
      fc.property(
        fc.record({
          change: fc.nat(),
          updates: fc.nat(),
          time: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
          payload: fc.option(fc.uint8Array({ maxLength: 16 }), { nil: undefined }),
          deleted: fc.option(fc.constant(true), { nil: undefined }),
          sync: fc.option(fc.dictionary(fc.string(), fc.integer()), { nil: undefined }),
          body: fc.option(
            fc.integer({ min: -128, max: 127 }).map((a) => (a ? { a } : {})),
            { nil: undefined },
          ),
        }),
        (fields) => {
          const note: Note = { id: "x", template: 1, ...fields };
          for (const k of Object.keys(note) as (keyof Note)[]) if (note[k] === undefined) delete note[k];
          expect(codec.decode(file, "x", codec.encode(file, note))).toEqual(note);
        },
      ),
    );
  });

  it("refuses a truncated or padded record instead of misreading it", () => {
    const definition: TemplateDefinition = { body: { a: 14, s: "text" } };
    const file = new Notefile("p.qo", notefileKind("p.qo")!, { ctr: 1, templates: { "1": definition } });
    const codec = new TemplateNoteCodec();
    const bytes = codec.encode(file, {
      id: "x",
      template: 1,
      change: 3,
      updates: 0,
      time: 5,
      body: { a: 1, s: "abc" },
    });
    for (let cut = 1; cut < bytes.length; cut++) {
      expect(() => codec.decode(file, "x", bytes.subarray(0, cut))).toThrow(/truncated/);
    }
    expect(() => codec.decode(file, "x", new Uint8Array([...bytes, 0]))).toThrow(/stray bytes/);
  });
});
