import { describe, expect, it } from "vitest";
import { FlashKvStore } from "../../../firmware/storage/flash/FlashKvStore.js";
import { MemoryFlashFs } from "../../../firmware/storage/flash/MemoryFlashFs.js";
import { PowerLossFlashFs } from "../../../firmware/storage/flash/PowerLossFlashFs.js";
import { Notebox } from "../../../firmware/storage/Notebox.js";
import { SimError } from "../../../firmware/SimError.js";

const note = (i: number) => ({
  body: { reading: i, text: "sensor reading ".repeat(4) },
  time: 1_700_000_000 + i,
});

/** Adds notes until the flash refuses one; returns how many went in and the error. */
async function fill(box: Notebox, file = "data.qo"): Promise<{ added: number; error: SimError }> {
  for (let added = 0; ; added++) {
    try {
      await box.transact(() => box.appendToQueue(file, note(added)));
    } catch (error) {
      if (error instanceof SimError) return { added, error };
      throw error;
    }
  }
}

describe("a full flash", () => {
  it("refuses the write with {file-storage-full} and keeps everything already stored", async () => {
    const fs = new MemoryFlashFs();
    const store = new FlashKvStore(fs, { capacity: 16 * 1024 });
    const box = await Notebox.open(store);
    const { added, error } = await fill(box);
    expect(added).toBeGreaterThan(50);
    expect(error.message).toMatch(/\{file-storage-full\}/);
    expect(store.usage().used).toBeLessThanOrEqual(16 * 1024);
    expect(box.file("data.qo")!.total).toBe(added);

    await store.close();
    const rebooted = await Notebox.open(new FlashKvStore(fs));
    expect(rebooted.file("data.qo")!.total).toBe(added);
  });

  it("takes new notes again once deleted ones are compacted away", async () => {
    const fs = new MemoryFlashFs();
    const store = new FlashKvStore(fs, { capacity: 16 * 1024 });
    const box = await Notebox.open(store);
    const { added } = await fill(box);
    const full = store.usage().used;
    const queue = box.file("data.qo")!;
    await box.transact(() => {
      for (const id of [...queue.notes.keys()].slice(0, added / 2)) box.removeNote(queue, id);
    });
    await store.compact();
    expect(store.usage().used).toBeLessThan(full * 0.7);
    const more = await fill(box);
    expect(more.added).toBeGreaterThan(added / 3);
  });

  it("still accepts deletes when there is no room left to append them", async () => {
    const fs = new MemoryFlashFs();
    const store = new FlashKvStore(fs, { capacity: 16 * 1024, compactionThreshold: 1 << 30 });
    const box = await Notebox.open(store);
    await fill(box);
    // Fill the last bytes with tiny records so that not even a delete frame fits.
    for (let i = 0; ; i++) {
      try {
        await box.transact(() => box.setConfig(`k${i}`, i));
      } catch {
        break;
      }
    }
    expect(store.usage().capacity - store.usage().used).toBeLessThan(40);
    const queue = box.file("data.qo")!;
    const oldest = queue.oldest()!.id;
    await box.transact(() => box.removeNote(queue, oldest));
    expect(queue.notes.has(oldest)).toBe(false);
    await store.close();
    const rebooted = await Notebox.open(new FlashKvStore(fs));
    expect(rebooted.file("data.qo")!.notes.has(oldest)).toBe(false);
  });

  it("turns a full disk under the flash into {file-storage-full}, and the failed write never comes back", async () => {
    const fs = new PowerLossFlashFs();
    const store = new FlashKvStore(fs);
    const box = await Notebox.open(store);
    await box.transact(() => box.appendToQueue("data.qo", note(1)));
    fs.failAtStep(fs.steps + 1, "full");
    await expect(box.transact(() => box.appendToQueue("data.qo", note(2)))).rejects.toThrow(
      /\{file-storage-full\}/,
    );
    expect(box.file("data.qo")!.total).toBe(1);
    await box.transact(() => box.appendToQueue("data.qo", note(3)));
    await store.close();
    const rebooted = await Notebox.open(new FlashKvStore(fs));
    expect([...rebooted.file("data.qo")!.notes.values()].map((n) => n.body!["reading"])).toEqual([1, 3]);
  });

  it("answers a failed write with an {io} error and cuts the batch back out", async () => {
    const fs = new PowerLossFlashFs();
    const store = new FlashKvStore(fs);
    const box = await Notebox.open(store);
    fs.failAtStep(fs.steps + 1, "io"); // the bytes reach the page cache, then the write fails
    const error = await box.transact(() => box.appendToQueue("data.qo", note(1))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SimError);
    expect((error as SimError).message).toMatch(/^error writing to flash: .*\{io\}$/);
    await store.close();
    const rebooted = await Notebox.open(new FlashKvStore(fs));
    expect(rebooted.file("data.qo")).toBeUndefined();
  });
});
