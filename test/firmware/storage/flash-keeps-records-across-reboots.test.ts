import { describe, expect, it } from "vitest";
import { FlashKvStore } from "../../../firmware/storage/flash/FlashKvStore.js";
import { FILE_HEADER_SIZE, frameHeaderSize } from "../../../firmware/storage/flash/JournalFormat.js";
import { MemoryFlashFs } from "../../../firmware/storage/flash/MemoryFlashFs.js";
import { PowerLossFlashFs } from "../../../firmware/storage/flash/PowerLossFlashFs.js";
import { Notebox } from "../../../firmware/storage/Notebox.js";
import { canonical } from "./support/crashScenario.js";

const text = (s: string) => new TextEncoder().encode(s);

async function sizeOnFlash(fs: MemoryFlashFs): Promise<number> {
  let total = 0;
  for (const name of await fs.list()) total += (await fs.read(name))!.length;
  return total;
}

describe("the flash store", () => {
  it("gives back after a reboot exactly what was committed", async () => {
    const fs = new MemoryFlashFs();
    const store = new FlashKvStore(fs);
    expect((await store.open()).records.size).toBe(0);
    await store.commit([
      { op: "put", key: "a/1", value: text("one") },
      { op: "put", key: "a/2", value: text("two") },
      { op: "put", key: "b/1", value: new Uint8Array([0, 255, 10, 13]) },
    ]);
    await store.commit([
      { op: "put", key: "a/1", value: text("uno") },
      { op: "delete", key: "a/2" },
    ]);
    await store.commit([
      { op: "put", key: "c/1", value: text("x") },
      { op: "deletePrefix", prefix: "b/" },
    ]);
    await store.close();

    const rebooted = await new FlashKvStore(fs).open();
    expect(rebooted.recovery).toBeUndefined();
    expect(canonical(rebooted.records)).toBe(
      canonical(
        new Map([
          ["a/1", text("uno")],
          ["c/1", text("x")],
        ]),
      ),
    );
  });

  it("keeps keys that are not well-formed Unicode", async () => {
    const fs = new MemoryFlashFs();
    const store = new FlashKvStore(fs);
    await store.open();
    const keys = ["n\u001fé.qo\u001f1", "emoji 😀", "lone \ud800 high", "lone \udc00 low", ""];
    await store.commit(keys.map((key, i) => ({ op: "put", key, value: text(String(i)) })));
    await store.close();
    const records = (await new FlashKvStore(fs).open()).records;
    expect([...records.keys()].sort()).toEqual([...keys].sort());
  });

  it("stores values as raw bytes: a record costs its key, its value and a few bytes", async () => {
    const fs = new MemoryFlashFs();
    const store = new FlashKvStore(fs);
    await store.open();
    const before = store.usage().used;
    const compact = new Uint8Array(20).fill(0xaa); // a templated note's binary form
    await store.commit([{ op: "put", key: "n\u001fs.qo\u001f7", value: compact }]);
    const key = "n\u001fs.qo\u001f7".length;
    // framing (8 bytes) + op byte + key length + key + value length + value
    const payload = 1 + 1 + key + 1 + 20;
    expect(frameHeaderSize(payload, 2)).toBe(8);
    expect(store.usage().used - before).toBe(8 + payload);
  });

  it("reports as used every byte it keeps on flash", async () => {
    const fs = new MemoryFlashFs();
    const store = new FlashKvStore(fs, { capacity: 100_000 });
    await store.open();
    expect(store.usage()).toEqual({ used: await sizeOnFlash(fs), capacity: 100_000 });
    for (let i = 0; i < 50; i++) await store.commit([{ op: "put", key: `k${i % 7}`, value: text(`v${i}`) }]);
    await store.compact();
    await store.commit([{ op: "delete", key: "k1" }]);
    expect(store.usage().used).toBe(await sizeOnFlash(fs));
  });

  it("drops replaced and deleted records when it compacts", async () => {
    const fs = new MemoryFlashFs();
    const store = new FlashKvStore(fs, { compactionThreshold: 1_000_000 });
    await store.open();
    for (let i = 0; i < 200; i++) await store.commit([{ op: "put", key: "counter", value: text(String(i)) }]);
    const grown = store.usage().used;
    await store.compact();
    expect(store.usage().used).toBeLessThan(grown / 20);
    expect(store.stats.generation).toBe(2);
    expect(await fs.list()).toEqual(expect.arrayContaining(["flash.json", "journal.2"]));
    expect(await fs.list()).not.toContain("journal.1");
    const records = (await new FlashKvStore(fs).open()).records;
    expect(new TextDecoder().decode(records.get("counter"))).toBe("199");
  });

  it("compacts by itself once the garbage outweighs the live records twice over", async () => {
    const fs = new MemoryFlashFs();
    const store = new FlashKvStore(fs, { compactionThreshold: 4096 });
    await store.open();
    for (let i = 0; i < 400; i++)
      await store.commit([{ op: "put", key: `k${i % 4}`, value: new Uint8Array(40) }]);
    expect(store.stats.compactions).toBeGreaterThan(0);
    // Garbage never grows far past the threshold: the journal stays small.
    expect(store.usage().used).toBeLessThan(4096 + 3 * store.stats.liveBytes + 200);
  });

  it("writes nothing for a batch that changes nothing", async () => {
    const fs = new PowerLossFlashFs();
    const store = new FlashKvStore(fs);
    await store.open();
    const steps = fs.steps;
    await store.commit([
      { op: "delete", key: "missing" },
      { op: "deletePrefix", prefix: "none/" },
    ]);
    expect(fs.steps).toBe(steps);
  });

  it("keeps its capacity in flash.json, and a new capacity given at open replaces it", async () => {
    const fs = new MemoryFlashFs();
    await new FlashKvStore(fs, { capacity: 65_536 }).open();
    const superblock = new TextDecoder().decode(await fs.read("flash.json"));
    expect(JSON.parse(superblock)).toEqual({
      format: "cardsim-flash",
      version: 1,
      capacity: 65_536,
      check: expect.stringMatching(/^[0-9a-f]{8}$/),
    });
    const reopened = new FlashKvStore(fs);
    await reopened.open();
    expect(reopened.usage().capacity).toBe(65_536);
    const resized = new FlashKvStore(fs, { capacity: 131_072 });
    await resized.open();
    expect(JSON.parse(new TextDecoder().decode(await fs.read("flash.json"))).capacity).toBe(131_072);
  });

  it("holds a module's notebox: notefiles, notes, trackers and configuration survive a reboot", async () => {
    const fs = new MemoryFlashFs();
    const box = await Notebox.open(new FlashKvStore(fs));
    await box.transact(() => {
      box.appendToQueue("data.qo", { body: { temp: 20 }, time: 1 });
      box.appendToQueue("data.qo", { body: { temp: 21 }, payload: new Uint8Array([1, 2, 3]), time: 2 });
      box.putNote(box.ensureFile("settings.db"), { id: "s1", body: { on: true }, time: 3, updates: 0 });
      box.setTrackerPosition("hub", "data.qo", 1);
      box.setConfig("hub", { product: "com.example.x" });
    });
    await box.store.close();

    const again = await Notebox.open(new FlashKvStore(fs));
    expect([...again.file("data.qo")!.notes.values()].map((n) => n.body)).toEqual([
      { temp: 20 },
      { temp: 21 },
    ]);
    expect([...again.file("data.qo")!.notes.values()][1]!.payload).toEqual(new Uint8Array([1, 2, 3]));
    expect(again.file("settings.db")!.notes.get("s1")!.body).toEqual({ on: true });
    expect(again.trackerPosition("hub", "data.qo")).toBe(1);
    expect(again.config("hub")).toEqual({ product: "com.example.x" });
  });

  it("starts a new flash with a file header and nothing else to replay", async () => {
    const fs = new MemoryFlashFs();
    await new FlashKvStore(fs).open();
    const journal = (await fs.read("journal.1"))!;
    expect(new TextDecoder().decode(journal.subarray(0, 8))).toBe("CSJOURNL");
    expect(journal.length).toBe(FILE_HEADER_SIZE + frameHeaderSize(8, 1) + 8);
  });
});
