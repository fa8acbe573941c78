import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { VOLTAGE_STATES, VoltageVariable } from "../../../firmware/power/VoltageVariable.js";

const volts = fc.stringMatching(/^\d{1,3}(\.\d{1,6})?$/);
const minutes = fc.stringMatching(/^\d{1,9}$/);

/** Valid `state:value;...` texts with their entries: distinct states in any order. */
const validText = (numbers: fc.Arbitrary<string>) =>
  fc
    .shuffledSubarray([...VOLTAGE_STATES], { minLength: 1 })
    .chain((states) =>
      fc.tuple(
        fc.constant(states),
        fc.array(numbers, { minLength: states.length, maxLength: states.length }),
      ),
    )
    .map(([states, values]) => ({
      text: states.map((s, i) => `${s}:${values[i]}`).join(";"),
      entries: states.map((state, i) => ({ state, value: Number(values[i]) })),
    }));

describe("voltage-variable strings", () => {
  it("parse every valid text to its entries and give the same text back", () => {
    for (const [kind, numbers] of [
      ["volts", volts],
      ["integer", minutes],
    ] as const) {
      fc.assert(
        fc.property(validText(numbers), ({ text, entries }) => {
          const parsed = VoltageVariable.parse(text, kind);
          expect(parsed).toBeInstanceOf(VoltageVariable);
          const v = parsed as VoltageVariable;
          expect(v.entries).toEqual(entries);
          expect(v.toString()).toBe(text);
          expect(VoltageVariable.of(v.entries, kind).entries).toEqual(entries);
        }),
      );
    }
  });

  it("never throw on arbitrary text, and explain every refusal", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 120 }),
        fc.constantFrom("volts" as const, "integer" as const),
        (text, kind) => {
          const parsed = VoltageVariable.parse(text, kind);
          if (parsed instanceof VoltageVariable) expect(parsed.toString()).toBe(text);
          else expect(parsed.problem.length).toBeGreaterThan(0);
        },
      ),
    );
  });

  it("refuse a valid text spoiled by a stray character, a repeated state or an empty pair", () => {
    const spoil = fc.oneof(
      fc.record({
        kind: fc.constant("insert" as const),
        char: fc.constantFrom(" ", ";", ":", "x", "-", "+", "e", ",", "\t"),
      }),
      fc.constant({ kind: "repeat" as const, char: "" }),
      fc.constant({ kind: "trailing" as const, char: "" }),
    );
    fc.assert(
      fc.property(validText(volts), spoil, fc.nat(), ({ text, entries }, how, at) => {
        let bad: string;
        if (how.kind === "repeat") bad = `${text};${entries[0]!.state}:1`;
        else if (how.kind === "trailing") bad = `${text};`;
        else {
          const i = at % (text.length + 1);
          bad = text.slice(0, i) + how.char + text.slice(i);
        }
        // None of these characters fits the grammar wherever it lands.
        expect(VoltageVariable.parse(bad, "volts")).not.toBeInstanceOf(VoltageVariable);
      }),
    );
  });

  it("refuse whole-number settings with a fraction and thresholds with too many digits", () => {
    expect(VoltageVariable.parse("normal:60.5", "integer")).toEqual({
      problem: '"60.5" for normal is not a whole number',
    });
    expect(VoltageVariable.parse("normal:1234", "volts")).toEqual({
      problem: '"1234" for normal is not a voltage',
    });
    expect(VoltageVariable.parse("Normal:3", "volts")).toEqual({
      problem: '"Normal" is not one of usb, high, normal, low, dead',
    });
    expect(VoltageVariable.parse("x".repeat(97), "volts")).toEqual({
      problem: "it is longer than 96 characters",
    });
  });

  it("as thresholds, pick a listed state that never drops as the voltage rises, and usb on USB power", () => {
    fc.assert(
      fc.property(
        validText(volts),
        fc.double({ min: 0, max: 10, noNaN: true }),
        fc.double({ min: 0, max: 10, noNaN: true }),
        ({ text }, a, b) => {
          const t = VoltageVariable.parse(text, "volts") as VoltageVariable;
          const [low, high] = a <= b ? [a, b] : [b, a];
          const sLow = t.stateFor(low, false);
          const sHigh = t.stateFor(high, false);
          expect(t.valueFor(sLow)).toBeDefined();
          const floor = (v: number) =>
            Math.max(...t.entries.filter((e) => e.value <= v).map((e) => e.value), -1);
          // The chosen threshold is the highest one reached (or the lowest state below all).
          if (floor(low) >= 0) expect(t.valueFor(sLow)).toBe(floor(low));
          expect(t.valueFor(sHigh)!).toBeGreaterThanOrEqual(floor(low) >= 0 ? t.valueFor(sLow)! : 0);
          expect(t.stateFor(low, true)).toBe(t.valueFor("usb") === undefined ? sLow : "usb");
        },
      ),
    );
  });
});
