import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { describeDifferences } from "../../harness/capture/lineDiff.js";
import { parseCapture } from "../../harness/capture/parseCapture.js";
import { replayHostTraffic } from "../../harness/capture/replayHostTraffic.js";

/**
 * The captures under test/fixtures/capture/ were recorded once by a scenario of an earlier build
 * (test/fixtures/make-fixtures.ts) and are never regenerated: captures taken on rigs are kept for
 * years, so this build must still read them and its module must still answer their host traffic
 * with the very replies the captured module gave.
 */
const FIXTURES = join(import.meta.dirname, "..", "fixtures", "capture");

const captures = readdirSync(FIXTURES)
  .sort()
  .flatMap((folder) =>
    readdirSync(join(FIXTURES, folder))
      .filter((file) => file.endsWith(".jsonl"))
      .sort()
      .map((file) => [`${folder}/${file}`, readFileSync(join(FIXTURES, folder, file), "utf8")] as const),
  );

describe("captures recorded by an earlier build", () => {
  it("include the v1 capture of a note-c host adding notes, as recorded", () => {
    const found = captures.find(([name]) => name === "v1/note-c-host-adds-notes.jsonl");
    expect(found).toBeDefined();
    const capture = parseCapture(found![1]);
    expect(capture.meta).toEqual({
      module: { seed: "fixture-capture", variant: "cell", timeKnown: true },
      links: { serial: { kind: "serial", baud: 115_200, rx: {} } },
      format: 1,
      clockStart: Date.UTC(2026, 0, 1),
    });
    // What the captured module answered, line by line (the note-c reset's empty line first).
    const replies = capture.entries
      .filter((e) => e.link === "serial.module" && e.dir === "m2h" && e.kind === "bytes")
      .map((e) => Buffer.from(e.hex, "hex").toString("latin1"))
      .join("")
      .split("\r\n")
      .map((line) => line.replace(/,?"crc":"[0-9A-F]{4}:[0-9A-F]{8}"/, ""));
    const t0 = Date.UTC(2026, 0, 1) / 1000;
    expect(replies).toEqual([
      "",
      "{ }",
      '{"bytes":29}',
      '{"total":1,"template":true}',
      '{"total":2,"template":true}',
      '{"total":3,"template":true}',
      '{"total":1}',
      `{"body":{"mode":"eco"},"time":${t0}}`,
      "{ }",
      `{"text":"blue","time":${t0 + 1}}`,
      '{"total":4,"changes":4,"pending":true,"info":{"readings.qo":{"total":3,"changes":3},"settings.db":{"total":1,"changes":1}}}',
      "",
    ]);
  });

  describe.each(captures)("%s", (_name, text) => {
    it("parses strictly and replays into a fresh module to the same replies", async () => {
      const capture = parseCapture(text);
      const replay = await replayHostTraffic(capture);
      expect(replay.same, describeDifferences(replay.differences)).toBe(true);
      expect(replay.actual.length).toBeGreaterThan(0);
      expect(replay.actual).toEqual(replay.expected);
    });
  });
});
