import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { transcriptDifferences } from "../../cli/compare/command.js";

/*
 * Every transcript of a real module under test/fixtures/compare/ is replayed against the
 * simulated module of its SKU (docs/compare.md, "A transcript becomes a test"): the differences
 * must be exactly those of `<name>.known.json` beside it (none when there is no such file), with
 * `<name>.rules.json` as its rules when present. A change of the simulator that makes a reply
 * unlike the real module's fails here.
 */
const FIXTURES = fileURLToPath(new URL("../fixtures/compare/", import.meta.url));
const transcripts = readdirSync(FIXTURES).filter((f) => f.endsWith(".jsonl"));

describe("the transcripts of test/fixtures/compare", () => {
  it("are there to replay", () => {
    expect(transcripts).toContain("note-mbnan-published-replies.jsonl");
  });

  it.each(transcripts)("%s differs from the simulated module only as its known file says", async (name) => {
    const base = join(FIXTURES, name.replace(/\.jsonl$/, ""));
    const rules = existsSync(`${base}.rules.json`) ? `${base}.rules.json` : undefined;
    const known = existsSync(`${base}.known.json`)
      ? (JSON.parse(readFileSync(`${base}.known.json`, "utf8")) as { exchanges: unknown[] }).exchanges
      : [];
    expect(await transcriptDifferences(join(FIXTURES, name), rules)).toEqual(known);
  });
});
