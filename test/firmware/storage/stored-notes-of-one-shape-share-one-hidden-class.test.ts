import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const PROBE = join(import.meta.dirname, "support", "hiddenClassProbe.ts");

// Every read of a note's members (sending a batch, encoding it, answering note.get) is a property
// lookup on the note: with a hidden class per note, as `{ ...note, change }` gave on Node 20, each
// was megamorphic (a sync of 20,000 notes spent about 15 times as long making their records) and
// each note carried a hidden class's memory.
describe("notes the module stores", () => {
  it("share one hidden class per shape, with their members in the order they were given", () => {
    const run = spawnSync(process.execPath, ["--allow-natives-syntax", "--import", "tsx", PROBE], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(run.stderr).toBe("");
    const probe = JSON.parse(run.stdout.trim()) as Record<string, unknown>;
    expect(probe).toEqual({
      stored: 1,
      appended: 1,
      storedKeys: ["id", "time", "updates", "body", "change", "key"],
      appendedKeys: ["body", "time", "id", "updates", "change", "key"],
    });
  });
});
