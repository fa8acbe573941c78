import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_RULES, loadRules, RuleSet } from "../../cli/compare/rules.js";
import { compareReplies, describeDifference, errorTags } from "../../cli/compare/shape.js";

const none = new RuleSet({ mask: [], ignore: [] });
const defaults = new RuleSet(DEFAULT_RULES);

describe("the reply comparison of cardsim compare", () => {
  it("names members on one side only, other types, other values, in the real reply's order", () => {
    const real = { a: 1, b: "x", c: true, d: { e: 1 }, list: [1, 2] };
    const sim = { a: 2, b: 5, d: { e: 1, f: null }, list: [1], z: 0 };
    expect(compareReplies("x.y", real, sim, none)).toEqual([
      { path: "a", kind: "value", real: 1, sim: 2 },
      { path: "b", kind: "type", real: "string", sim: "number" },
      { path: "c", kind: "missing", real: true },
      { path: "d.f", kind: "extra", sim: null },
      { path: "list", kind: "value", real: [1, 2], sim: [1] },
      { path: "z", kind: "extra", sim: 0 },
    ]);
    expect(compareReplies("x.y", { n: [{ t: 1 }] }, { n: [{ t: "1" }] }, none)).toEqual([
      { path: "n.0.t", kind: "type", real: "number", sim: "string" },
    ]);
    expect(compareReplies("x.y", { a: { b: 1 } }, { a: { b: 1 } }, none)).toEqual([]);
  });

  // reference/notecard-behavior.md 3.3: hosts test the {tags} of an error, never its prose.
  it("compares an error's {tags} as its code and its text apart; masked, only the tags", () => {
    expect(errorTags("x {io} {not-supported} y {io}")).toEqual(["{io}", "{not-supported}"]);
    const real = { err: "unknown request {io}" };
    const sim = { err: "unknown request: x {io} {not-supported}" };
    expect(compareReplies("x", real, sim, none).map(describeDifference)).toEqual([
      "error code: real {io}, simulated {io} {not-supported}",
      'error text: real "unknown request {io}", simulated "unknown request: x {io} {not-supported}"',
    ]);
    const tagsOnly = new RuleSet({ mask: ["err"], ignore: [] });
    expect(compareReplies("x", { err: "a {io}" }, { err: "b {io}" }, tagsOnly)).toEqual([]);
    // An error on one side only is a member the other lacks.
    expect(compareReplies("x", { err: "no {io}" }, {}, none)).toEqual([
      { path: "err", kind: "missing", real: "no {io}" },
    ]);
  });

  it("masks a value but not its presence or type; ignores a member altogether", () => {
    const rules = new RuleSet({ mask: ["card.status:time", "**.rssi"], ignore: ["card.status:storage"] });
    expect(compareReplies("card.status", { time: 1, storage: 8 }, { time: 2 }, rules)).toEqual([]);
    expect(compareReplies("card.status", { time: 1 }, { time: "2" }, rules)).toEqual([
      { path: "time", kind: "type", real: "number", sim: "string" },
    ]);
    expect(compareReplies("card.status", { time: 1 }, {}, rules)).toEqual([
      { path: "time", kind: "missing", real: 1 },
    ]);
    // The request part limits a rule to one request.
    expect(compareReplies("card.time", { time: 1 }, { time: 2 }, rules)).toHaveLength(1);
    expect(
      compareReplies("any", { net: { cell: { rssi: -70 } } }, { net: { cell: { rssi: -90 } } }, rules),
    ).toEqual([]);
    // A masked object keeps its members' shapes compared, not their values.
    const masked = new RuleSet({ mask: ["net"], ignore: [] });
    expect(compareReplies("x", { net: { a: 1, b: 2 } }, { net: { a: 3 } }, masked)).toEqual([
      { path: "net.b", kind: "missing", real: 2 },
    ]);
  });

  it("patterns: * stands for one member name or part of one, ** for any number of members", () => {
    const rules = new RuleSet({ mask: ["a.*", "b.**.c", "ver_*", "**"], ignore: [] });
    const single = new RuleSet({ mask: ["a.*"], ignore: [] });
    expect(single.masked("r", "a.x")).toBe(true);
    expect(single.masked("r", "a")).toBe(false);
    expect(single.masked("r", "a.x.y")).toBe(false);
    const deep = new RuleSet({ mask: ["b.**.c", "ver_*", "x.**"], ignore: [] });
    expect(deep.masked("r", "b.c")).toBe(true);
    expect(deep.masked("r", "b.x.y.c")).toBe(true);
    expect(deep.masked("r", "b.x.cc")).toBe(false);
    expect(deep.masked("r", "ver_build")).toBe(true);
    expect(deep.masked("r", "version")).toBe(false);
    expect(deep.masked("r", "x")).toBe(true);
    expect(deep.masked("r", "x.y.z")).toBe(true);
    expect(rules.masked("r", "anything.at.all")).toBe(true);
  });

  it("the defaults mask what changes from unit to unit and moment to moment", () => {
    const version = (device: string, build: number) => ({
      body: { built: `Oct ${build}`, ver_build: build, ver_major: 9 },
      version: `notecard-9.3.1.${build}`,
      device,
      sku: "NOTE-MBNAN",
    });
    expect(compareReplies("card.version", version("dev:1", 17434), version("dev:2", 1), defaults)).toEqual(
      [],
    );
    expect(
      compareReplies(
        "card.version",
        version("dev:1", 1),
        { ...version("dev:1", 1), sku: "NOTE-WBNAW" },
        defaults,
      ),
    ).toEqual([{ path: "sku", kind: "value", real: "NOTE-MBNAN", sim: "NOTE-WBNAW" }]);
    expect(
      compareReplies("card.wireless", { net: { rssi: -70, rat: "lte" } }, { net: { rssi: -1 } }, defaults),
    ).toEqual([{ path: "net.rat", kind: "missing", real: "lte" }]);
  });
});

describe("a rules file", () => {
  const dir = mkdtempSync(join(tmpdir(), "cardsim-rules-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it("extends the defaults, or replaces them with defaults:false", () => {
    const extended = loadRules(file("a.json", '{"mask":["card.status:usb"],"ignore":["x"]}'));
    expect(extended.mask).toEqual([...DEFAULT_RULES.mask, "card.status:usb"]);
    expect(extended.ignore).toEqual(["x"]);
    expect(loadRules(file("b.json", '{"defaults":false,"mask":["time"]}'))).toEqual({
      mask: ["time"],
      ignore: [],
    });
    expect(loadRules(undefined)).toBe(DEFAULT_RULES);
  });

  it("that is wrong is answered in one line naming the file and what to write", () => {
    expect(() => loadRules(join(dir, "none.json"))).toThrow(
      /^no rules file .*none\.json: check --rules FILE$/,
    );
    expect(() => loadRules(file("c.json", "{mask"))).toThrow(
      /c\.json is not a JSON rules file .*docs\/compare\.md/,
    );
    expect(() => loadRules(file("d.json", "[]"))).toThrow(/a rules file is a JSON object/);
    expect(() => loadRules(file("e.json", '{"mask":"time"}'))).toThrow(
      /"mask" must be a list of path patterns/,
    );
    expect(() => loadRules(file("f.json", '{"masks":[]}'))).toThrow(/unknown member "masks"/);
  });
});
