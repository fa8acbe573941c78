import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { checkWorkload, parseWorkload, SENSORS_WORKLOAD, WorkloadError, type Workload } from "cardsim";
import { compileBody } from "../../../runtime/fleet/bodies.js";
import { REPO } from "../../../tools/packedPackage.js";
import { docBlocks } from "../../support/docBlocks.js";

// A workload file (YAML or JSON) is checked against its schema before a fleet starts: a mistake is
// one line naming the file and the field by its path, saying what the field must be. The bodies
// its notefiles describe are generated from the seed alone: the same seed, module and note number
// give the same body, of the size asked for.

const mistake = (text: string) => {
  try {
    parseWorkload(text, "w.yaml");
  } catch (error) {
    expect(error).toBeInstanceOf(WorkloadError);
    return (error as Error).message;
  }
  throw new Error("no mistake found");
};

describe("a workload file", () => {
  it("answers each mistake with the file, the field's path and what it must be", () => {
    expect(mistake("name: x\n")).toBe("w.yaml: groups: is required");
    expect(mistake("groups: []\n")).toBe("w.yaml: groups: must NOT have fewer than 1 items");
    expect(mistake("groups:\n  - name: a\n    colour: red\n")).toBe(
      'w.yaml: groups[0]: unknown field "colour"',
    );
    expect(mistake("groups:\n  - share: 2\n")).toBe("w.yaml: groups[0].name: is required");
    expect(mistake("groups:\n  - name: a\n    notefiles:\n      - { file: a.qo, every: soon }\n")).toBe(
      "w.yaml: groups[0].notefiles[0].every: must be a time: a number with ms, s, m, h or d (a bare number is seconds)",
    );
    expect(mistake("groups:\n  - name: a\n    notefiles:\n      - { file: a.txt, every: 1m }\n")).toMatch(
      /^w\.yaml: groups\[0\]\.notefiles\[0\]\.file: must be a notefile.s name ending in \.qo, \.qos, \.db or \.dbs$/,
    );
    expect(mistake("groups:\n  - name: a\n    notefiles:\n      - { file: a.qo, every: 0 }\n")).toBe(
      "w.yaml: groups[0].notefiles[0].every: must be a time above 0, such as 15m",
    );
    expect(mistake("groups:\n  - name: a\n    sync: { mode: sometimes }\n")).toBe(
      "w.yaml: groups[0].sync.mode: must be one of periodic, minimum, continuous, off",
    );
    expect(mistake("groups:\n  - name: a\n    outages:\n      - { kind: network, at: 1h }\n")).toBe(
      "w.yaml: groups[0].outages[0].for: is required",
    );
    expect(
      mistake("groups:\n  - name: a\n    outages:\n      - { kind: network, at: 1h, for: 1m, share: 2 }\n"),
    ).toBe("w.yaml: groups[0].outages[0].share: must be <= 1");
    expect(mistake("groups:\n  - name: a\n    variant: toaster\n")).toMatch(
      /^w\.yaml: groups\[0\]\.variant: unknown module "toaster"/,
    );
    expect(mistake("groups:\n  - name: a\n    discharge: linear:4.2-3.3\n")).toMatch(
      /^w\.yaml: groups\[0\]\.discharge: .*linear:FROM-TO\/DURATION/,
    );
    expect(mistake("groups:\n  - name: a\n  - name: a\n")).toBe(
      'w.yaml: groups[1].name: "a" names two groups',
    );
    expect(mistake("groups: [\n")).toMatch(/^w\.yaml: not YAML or JSON: /);
  });

  it("takes JSON as well as YAML, and the built-in sensors workload is a valid one", () => {
    expect(parseWorkload(JSON.stringify(SENSORS_WORKLOAD))).toEqual(SENSORS_WORKLOAD);
    expect(checkWorkload(SENSORS_WORKLOAD)).toBe(SENSORS_WORKLOAD);
  });

  it("reads back any valid workload written as YAML or JSON", () => {
    const duration = fc.oneof(
      fc.integer({ min: 1, max: 86_400 }),
      fc
        .tuple(fc.integer({ min: 1, max: 999 }), fc.constantFrom("ms", "s", "m", "min", "h", "d"))
        .map(([n, u]) => `${n}${u}`),
    );
    const group = fc.record(
      {
        name: fc.stringMatching(/^[A-Za-z0-9_-]{1,12}$/),
        share: fc.double({ min: 0.1, max: 100, noNaN: true }),
        sync: fc.record({
          mode: fc.constantFrom("periodic", "minimum", "continuous", "off" as const),
          outbound: fc.integer({ min: 1, max: 1440 }),
        }),
        notefiles: fc.array(
          fc.record({
            file: fc.stringMatching(/^[a-z]{1,8}\.qo$/),
            every: duration,
            bytes: fc.integer({ min: 2, max: 8192 }),
          }),
          { maxLength: 3 },
        ),
        outages: fc.array(
          fc.record({
            kind: fc.constantFrom("network", "hub" as const),
            at: duration,
            for: duration,
            share: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { maxLength: 2 },
        ),
      },
      { requiredKeys: ["name"] },
    );
    const workload = fc
      .uniqueArray(group, { minLength: 1, maxLength: 4, selector: (g) => g.name })
      .map((groups) => ({ seed: 7, groups }));
    fc.assert(
      fc.property(workload, fc.boolean(), (w, json) => {
        const text = json ? JSON.stringify(w) : stringify(w);
        expect(parseWorkload(text)).toEqual(w as Workload);
      }),
    );
  });

  it("makes note bodies from the seed alone, of the size asked for", () => {
    const body = compileBody(
      {
        temp: { $random: [18, 26] },
        n: { $seq: 1 },
        site: { $pick: ["a", "b"] },
        at: { deep: { $int: [1, 3] } },
      },
      100,
      "body",
    );
    fc.assert(
      fc.property(fc.integer(), fc.nat(100_000), fc.nat(10_000), (seed, module, n) => {
        const made = body(seed, module, n);
        expect(made).toEqual(body(seed, module, n));
        expect(JSON.stringify(made)).toHaveLength(100);
        expect(made["n"]).toBe(n + 1);
        expect(made["temp"]).toBeGreaterThanOrEqual(18);
        expect(made["temp"]).toBeLessThanOrEqual(26);
        expect(["a", "b"]).toContain(made["site"]);
      }),
    );
    expect(() => compileBody({ x: { $gauss: [1, 2] } }, undefined, "groups[0].notefiles[0].body")).toThrow(
      "groups[0].notefiles[0].body.x: unknown generator $gauss (use $random, $int, $seq or $pick)",
    );
  });

  it("every workload example in docs/fleet.md is a valid workload", () => {
    const examples = docBlocks(REPO).filter(
      (b) => b.file === "docs/fleet.md" && (b.lang === "yaml" || b.lang === "json"),
    );
    expect(examples.length).toBeGreaterThanOrEqual(8);
    for (const block of examples)
      expect(() => parseWorkload(block.text, `docs/fleet.md:${block.line}`)).not.toThrow();
  });
});
