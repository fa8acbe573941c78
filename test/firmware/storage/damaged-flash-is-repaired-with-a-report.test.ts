import { describe, expect, it } from "vitest";
import { crc32 } from "../../../core/crc32.js";
import { MemoryLog } from "../../../firmware/ModuleLog.js";
import { Module } from "../../../firmware/Module.js";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { FlashKvStore } from "../../../firmware/storage/flash/FlashKvStore.js";
import { encodeFileHeader, FILE_HEADER_SIZE } from "../../../firmware/storage/flash/JournalFormat.js";
import { MemoryFlashFs } from "../../../firmware/storage/flash/MemoryFlashFs.js";
import { encodeSuperblock } from "../../../firmware/storage/flash/Superblock.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { canonical } from "./support/crashScenario.js";

const text = (s: string) => new TextEncoder().encode(s);
const decode = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : undefined);

/** A flash with three committed batches; returns it with the journal's frame boundaries. */
async function flashWithHistory(): Promise<{ fs: MemoryFlashFs; ends: number[] }> {
  const fs = new MemoryFlashFs();
  const store = new FlashKvStore(fs);
  await store.open();
  const ends = [(await fs.read("journal.1"))!.length];
  await store.commit([{ op: "put", key: "a", value: text("first") }]);
  ends.push((await fs.read("journal.1"))!.length);
  await store.commit([{ op: "put", key: "b", value: text("second") }]);
  ends.push((await fs.read("journal.1"))!.length);
  await store.commit([
    { op: "put", key: "c", value: text("third") },
    { op: "put", key: "a", value: text("again") },
  ]);
  ends.push((await fs.read("journal.1"))!.length);
  await store.close();
  return { fs, ends };
}

async function reopen(fs: MemoryFlashFs) {
  const store = new FlashKvStore(fs);
  const snapshot = await store.open();
  await store.close();
  return snapshot;
}

describe("a damaged flash", () => {
  it("cuts a journal truncated at any byte back to its last whole batch", async () => {
    const { fs, ends } = await flashWithHistory();
    const journal = (await fs.read("journal.1"))!;
    for (let cut = ends[2]! + 1; cut < ends[3]!; cut++) {
      const copy = new MemoryFlashFs();
      copy.put("flash.json", (await fs.read("flash.json"))!);
      copy.put("journal.1", journal.subarray(0, cut));
      const snapshot = await reopen(copy);
      expect(canonical(snapshot.records)).toBe(
        canonical(
          new Map([
            ["a", text("first")],
            ["b", text("second")],
          ]),
        ),
      );
      expect(snapshot.recovery?.truncatedBytes).toBe(cut - ends[2]!);
      expect(snapshot.recovery?.details.join()).toMatch(/torn/);
      // Repaired once: the next boot is clean (no crash loop, no second report).
      expect((await reopen(copy)).recovery).toBeUndefined();
    }
  });

  it("steps over a bit-flipped batch, keeps the batches after it and reports the loss", async () => {
    const { fs, ends } = await flashWithHistory();
    const journal = (await fs.read("journal.1"))!.slice();
    journal[ends[2]! - 3]! ^= 0x10; // inside batch 2's payload
    fs.put("journal.1", journal);
    const snapshot = await reopen(fs);
    expect(decode(snapshot.records.get("a"))).toBe("again");
    expect(decode(snapshot.records.get("c"))).toBe("third");
    expect(snapshot.records.has("b")).toBe(false);
    expect(snapshot.recovery?.droppedRecords).toBe(1);
    expect(snapshot.recovery?.details.join("\n")).toMatch(/damaged bytes at offset/);
    // The damaged journal is kept for study; the state moved on to a clean generation.
    expect((await fs.list()).sort()).toEqual(["flash.json", "journal.1.damaged", "journal.2"]);
    expect((await reopen(fs)).recovery).toBeUndefined();
  });

  it("never accepts a corrupted value, whichever byte is flipped", async () => {
    const { fs } = await flashWithHistory();
    const journal = (await fs.read("journal.1"))!;
    const written: Record<string, string[]> = { a: ["first", "again"], b: ["second"], c: ["third"] };
    for (let at = 0; at < journal.length; at++) {
      const copy = new MemoryFlashFs();
      copy.put("flash.json", (await fs.read("flash.json"))!);
      const flipped = journal.slice();
      flipped[at]! ^= 1 << (at % 8);
      copy.put("journal.1", flipped);
      const snapshot = await reopen(copy);
      expect(snapshot.recovery, `byte ${at}`).toBeDefined();
      for (const [key, value] of snapshot.records)
        expect(written[key], `byte ${at}`).toContain(decode(value));
      expect((await reopen(copy)).recovery, `byte ${at}`).toBeUndefined();
    }
  });

  it("starts empty with a report when the journal file is missing", async () => {
    const { fs } = await flashWithHistory();
    await fs.remove("journal.1");
    const snapshot = await reopen(fs);
    expect(snapshot.records.size).toBe(0);
    expect(snapshot.recovery?.details.join()).toMatch(/no journal found/);
  });

  it("rewrites a missing or damaged flash.json from the journal", async () => {
    const { fs } = await flashWithHistory();
    await fs.remove("flash.json");
    const missing = await reopen(fs);
    expect(missing.records.size).toBe(3);
    expect(missing.recovery?.details.join()).toMatch(/flash.json was missing/);
    fs.put("flash.json", text('{"format":"cardsim-fl'));
    const damaged = await reopen(fs);
    expect(damaged.records.size).toBe(3);
    expect(damaged.recovery?.details.join()).toMatch(/flash.json was damaged/);
    expect((await reopen(fs)).recovery).toBeUndefined();
  });

  it("refuses a flash written by a newer format version, changing nothing", async () => {
    const { fs } = await flashWithHistory();
    fs.put("flash.json", encodeSuperblock({ version: 2, capacity: 4194304 }));
    const before = await fs.read("journal.1");
    await expect(new FlashKvStore(fs).open()).rejects.toThrow(
      /newer cardsim: flash.json has storage format version 2, this cardsim reads up to version 1/,
    );
    expect(await fs.read("journal.1")).toEqual(before);
  });

  it("refuses a journal whose header says a newer format version", async () => {
    const { fs } = await flashWithHistory();
    const journal = (await fs.read("journal.1"))!.slice();
    const view = new DataView(journal.buffer);
    view.setUint16(8, 7, true); // version field, with a header CRC to match
    view.setUint32(16, crc32(journal.subarray(0, 16)), true);
    fs.put("journal.1", journal);
    await expect(new FlashKvStore(fs).open()).rejects.toThrow(/journal.1 has storage format version 7/);
  });

  it("rewrites a flash.json whose check does not match instead of trusting its version", async () => {
    const { fs } = await flashWithHistory();
    const superblock = decode(await fs.read("flash.json"))!;
    fs.put("flash.json", text(superblock.replace('"version":1', '"version":3')));
    const snapshot = await reopen(fs);
    expect(snapshot.records.size).toBe(3);
    expect(snapshot.recovery?.details.join()).toMatch(/flash.json was damaged/);
  });

  it("treats a journal header with a newer version but a bad CRC as damage, not as newer", async () => {
    const { fs } = await flashWithHistory();
    const journal = (await fs.read("journal.1"))!.slice();
    journal[8] = 7;
    fs.put("journal.1", journal);
    const snapshot = await reopen(fs);
    expect(snapshot.records.size).toBe(3);
    expect(snapshot.recovery?.details.join()).toMatch(/damaged file header/);
  });

  it("refuses a directory whose flash.json belongs to something else", async () => {
    const fs = new MemoryFlashFs();
    fs.put("flash.json", text('{"format":"someone-else","version":1}'));
    await expect(new FlashKvStore(fs).open()).rejects.toThrow(/not a cardsim flash superblock/);
    expect(await fs.list()).toEqual(["flash.json"]);
  });

  it("keeps a garbage journal aside and starts over with a report", async () => {
    const fs = new MemoryFlashFs();
    fs.put("flash.json", encodeSuperblock({ version: 1, capacity: 4194304 }));
    fs.put("journal.3", new Uint8Array(5000).fill(0x5a));
    const snapshot = await reopen(fs);
    expect(snapshot.records.size).toBe(0);
    expect(snapshot.recovery?.details.join()).toMatch(/journal.3 is damaged \(not a journal file\)/);
    expect((await fs.list()).sort()).toEqual(["flash.json", "journal.3.damaged", "journal.4"]);
  });

  it("salvages the records of a journal whose header is damaged", async () => {
    const { fs } = await flashWithHistory();
    const journal = (await fs.read("journal.1"))!.slice();
    journal.set(new Uint8Array(FILE_HEADER_SIZE)); // header zeroed
    fs.put("journal.1", journal);
    const snapshot = await reopen(fs);
    expect(snapshot.records.size).toBe(3);
    expect(snapshot.recovery?.details.join()).toMatch(/damaged file header.*salvaged 3 records/);
  });

  it("falls back to the previous generation when the newest one is damaged", async () => {
    const { fs } = await flashWithHistory();
    const valid = (await fs.read("journal.1"))!;
    fs.put("journal.2", new Uint8Array([...encodeFileHeader(2), 1, 2, 3]));
    const snapshot = await reopen(fs);
    expect(decode(snapshot.records.get("a"))).toBe("again");
    expect(snapshot.recovery?.details.join()).toMatch(/journal.2 is damaged.*state taken from journal.1/);
    expect(await fs.read("journal.1.damaged")).toBeUndefined();
    expect(valid.length).toBeGreaterThan(0);
  });

  it("boots a module on it, logs the repair and leaves a _health.qo note for the hub", async () => {
    const { fs, ends } = await flashWithHistory();
    fs.put("journal.1", (await fs.read("journal.1"))!.subarray(0, ends[3]! - 3));
    const log = new MemoryLog();
    const module = await Module.boot({
      clock: new FakeClock(),
      random: new SeededRandom(1),
      store: new FlashKvStore(fs),
      log,
    });
    expect(log.lines.find((l) => l.level === "warn")?.message).toBe(
      "flash recovered after an unclean shutdown",
    );
    const health = module.notebox.file("_health.qo");
    expect(health?.total).toBe(1);
    const body = health!.oldest()!.body!;
    expect(body["text"]).toMatch(/^flash recovered: cut \d+ bytes of a write torn by a power loss/);
    expect(body["truncated_bytes"]).toBeGreaterThan(0);
    await module.close();
    // The note is on flash, and the next boot has nothing to report.
    const log2 = new MemoryLog();
    const again = await Module.boot({
      clock: new FakeClock(),
      random: new SeededRandom(1),
      store: new FlashKvStore(fs),
      log: log2,
    });
    expect(again.notebox.file("_health.qo")?.total).toBe(1);
    expect(log2.lines.some((l) => l.level === "warn")).toBe(false);
  });
});
