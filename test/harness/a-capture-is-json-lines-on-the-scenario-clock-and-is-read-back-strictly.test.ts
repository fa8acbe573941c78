import fc from "fast-check";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LinkCapture, fromHex, toHex } from "../../hil/capture/LinkCapture.js";
import { parseCapture } from "../../harness/capture/parseCapture.js";
import { FakeClock } from "../../runtime/FakeClock.js";
import { chainStages } from "../../hil/stages/ByteStage.js";

describe("LinkCapture", () => {
  it("records {t, link, dir, kind, hex} lines after a header, with t on the clock", async () => {
    const clock = new FakeClock();
    const capture = new LinkCapture(clock, { module: { seed: 7, variant: "cell", timeKnown: false } });
    const tap = chainStages([capture.tap("serial.module", "h2m")], () => undefined);
    tap(Uint8Array.of(0x7b, 0x7d, 0x0a));
    await clock.advance(250);
    capture.record("serial.module", "h2m", "overflow", Uint8Array.of(1, 2), { position: 1500 });
    capture.record("world", "w2m", "world", undefined, { action: "supply", volts: 3.1 });
    const lines = capture
      .toJsonl()
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as unknown);
    expect(lines).toEqual([
      {
        t: 0,
        link: "capture",
        dir: "meta",
        kind: "meta",
        hex: "",
        info: {
          module: { seed: 7, variant: "cell", timeKnown: false },
          format: 1,
          clockStart: Date.UTC(2026, 0, 1),
        },
      },
      { t: 0, link: "serial.module", dir: "h2m", kind: "bytes", hex: "7b7d0a" },
      { t: 250, link: "serial.module", dir: "h2m", kind: "overflow", hex: "0102", info: { position: 1500 } },
      { t: 250, link: "world", dir: "w2m", kind: "world", hex: "", info: { action: "supply", volts: 3.1 } },
    ]);
    const parsed = parseCapture(capture.toJsonl());
    expect(parsed.entries).toEqual(capture.entries);
    expect(parsed.meta.module).toEqual({ seed: 7, variant: "cell", timeKnown: false });
  });

  it("streams to a file as it goes", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cardsim-capture-"));
    try {
      const clock = new FakeClock();
      const capture = new LinkCapture(clock);
      capture.record("serial.host", "m2h", "bytes", Uint8Array.of(0x0d, 0x0a));
      capture.streamTo(join(dir, "c.jsonl"));
      capture.record("serial.host", "h2m", "bytes", Uint8Array.of(0x0a));
      await capture.close();
      expect(readFileSync(join(dir, "c.jsonl"), "utf8")).toBe(capture.toJsonl());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("hex round-trips every byte string", () => {
    fc.assert(
      fc.property(fc.uint8Array(), (b) => {
        expect([...fromHex(toHex(b))]).toEqual([...b]);
      }),
    );
  });
});

describe("parseCapture", () => {
  const header = JSON.stringify({
    t: 0,
    link: "capture",
    dir: "meta",
    kind: "meta",
    hex: "",
    info: { format: 1, clockStart: 0 },
  });
  const line = (e: Record<string, unknown>) =>
    JSON.stringify({ t: 1, link: "serial.host", dir: "h2m", kind: "bytes", hex: "0a", ...e });

  it("names the line and the problem of a damaged capture", () => {
    const bad: [string, RegExp][] = [
      ["{oops", /line 2: not JSON/],
      ["[1]", /line 2: not an object/],
      [line({ t: -1 }), /line 2: t must be/],
      [line({ link: "" }), /line 2: link must be/],
      [line({ dir: "up" }), /line 2: dir must be one of/],
      [line({ kind: "bits" }), /line 2: kind must be one of/],
      [line({ hex: "0A" }), /line 2: hex must be lowercase/],
      [line({ hex: "abc" }), /line 2: hex must be lowercase/],
      [line({ info: [] }), /line 2: info must be an object/],
    ];
    for (const [text, error] of bad) expect(() => parseCapture(`${header}\n${text}\n`)).toThrow(error);
    expect(() => parseCapture(line({}))).toThrow(/line 1: must be the header/);
    expect(() => parseCapture(`${header}\n${line({ t: 5 })}\n${line({ t: 4 })}`)).toThrow(
      /line 3: t goes back/,
    );
    expect(parseCapture(`${header}\n${line({})}`).entries).toHaveLength(2);
  });

  it("never fails with anything but a clear Error on arbitrary text", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.jsonValue(), { maxLength: 4 }), (junk, values) => {
        for (const text of [
          junk,
          `${header}\n${junk}`,
          `${header}\n${values.map((v) => JSON.stringify(v)).join("\n")}`,
        ]) {
          try {
            parseCapture(text);
          } catch (error) {
            expect(error).toBeInstanceOf(Error);
            expect((error as Error).message).toMatch(/^capture line \d+: /);
          }
        }
      }),
    );
  });
});
