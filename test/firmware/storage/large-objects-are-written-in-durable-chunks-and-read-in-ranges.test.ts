import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { md5Hex } from "../../../core/md5.js";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { randomBytes } from "../../../core/Random.js";
import { FlashKvStore } from "../../../firmware/storage/flash/FlashKvStore.js";
import { MemoryFlashFs } from "../../../firmware/storage/flash/MemoryFlashFs.js";
import { MeteredFlashFs } from "../../../firmware/storage/flash/MeteredFlashFs.js";
import { POWER_LOSS_MODES, PowerLossFlashFs } from "../../../firmware/storage/flash/PowerLossFlashFs.js";
import { LargeObjectStore } from "../../../firmware/storage/LargeObjectStore.js";

const image = (length: number, seed = 1) => randomBytes(new SeededRandom(seed), length);
const CHUNK = 4096;

async function writeAll(store: LargeObjectStore, name: string, bytes: Uint8Array): Promise<void> {
  await store.create(name, bytes.length);
  for (let at = 0; at < bytes.length; at += CHUNK)
    await store.append(name, at, bytes.subarray(at, Math.min(bytes.length, at + CHUNK)));
}

describe("the large-object store", () => {
  it("keeps a 1 MB image written in chunks, byte for byte, and reads it back in ranges", async () => {
    const fs = new MeteredFlashFs(new MemoryFlashFs());
    const store = await LargeObjectStore.open(fs);
    const bytes = image(1_000_000);
    await writeAll(store, "host-fw", bytes);
    expect(await store.info("host-fw")).toEqual({ name: "host-fw", size: bytes.length });
    expect(await store.md5("host-fw")).toBe(md5Hex(bytes));
    const before = fs.traffic.bytesRead;
    expect(await store.read("host-fw", 123_456, 8192)).toEqual(bytes.slice(123_456, 123_456 + 8192));
    // A ranged read touches only its range: the image is never loaded whole.
    expect(fs.traffic.bytesRead - before).toBe(8192);
    expect(await store.read("host-fw", bytes.length - 10, 100)).toEqual(bytes.slice(-10));
  });

  it("any chunking of any image reads back the same bytes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 5000 }),
        fc.array(fc.integer({ min: 1, max: 700 }), { minLength: 1, maxLength: 20 }),
        async (bytes, sizes) => {
          const store = await LargeObjectStore.open(new MemoryFlashFs());
          await store.create("img", bytes.length);
          let at = 0;
          for (let i = 0; at < bytes.length; i++) {
            const n = sizes[i % sizes.length]!;
            await store.append("img", at, bytes.subarray(at, at + n));
            at = Math.min(bytes.length, at + n);
          }
          expect(await store.read("img", 0, bytes.length)).toEqual(bytes);
          expect(await store.md5("img")).toBe(md5Hex(bytes));
        },
      ),
      { numRuns: 50 },
    );
  });

  it("refuses an image that does not fit before its first byte, and writes past the booking", async () => {
    const store = await LargeObjectStore.open(new MemoryFlashFs(), { capacity: 10_000 });
    await store.create("a", 6000);
    await expect(store.create("b", 5000)).rejects.toThrow(/\{file-storage-full\}/);
    await store.create("b", 4000);
    await expect(store.append("b", 0, new Uint8Array(4001))).rejects.toThrow(/\{file-storage-full\}/);
    await store.delete("a");
    await store.create("c", 6000);
    expect(store.list()).toEqual(["b", "c"]);
  });

  it("refuses an append that is not at the end (a writer that lost its place)", async () => {
    const store = await LargeObjectStore.open(new MemoryFlashFs());
    await store.create("img", 100);
    await store.append("img", 0, new Uint8Array(10));
    await expect(store.append("img", 20, new Uint8Array(10))).rejects.toThrow(/holds 10 bytes/);
  });

  it("lives beside the journal of the flash store without either disturbing the other", async () => {
    const fs = new MemoryFlashFs();
    const kv = new FlashKvStore(fs);
    await kv.open();
    await kv.commit([{ op: "put", key: "k", value: new Uint8Array([1]) }]);
    const store = await LargeObjectStore.open(fs);
    await writeAll(store, "img", image(50_000));
    await kv.close();
    const again = new FlashKvStore(fs);
    expect((await again.open()).records.get("k")).toEqual(new Uint8Array([1]));
    expect((await (await LargeObjectStore.open(fs)).info("img"))?.size).toBe(50_000);
  });

  it.each(POWER_LOSS_MODES)(
    "%s: after a power loss at any step, every acknowledged chunk is there and the writer resumes",
    async (mode) => {
      const bytes = image(5 * CHUNK + 100, 7);
      for (let step = 1; step < 30; step++) {
        const fs = new PowerLossFlashFs();
        const store = await LargeObjectStore.open(fs);
        fs.failAtStep(fs.steps + step);
        let acknowledged = -1; // nothing created yet
        try {
          await store.create("img", bytes.length);
          acknowledged = 0;
          for (let at = 0; at < bytes.length; at += CHUNK) {
            acknowledged = await store.append("img", at, bytes.subarray(at, at + CHUNK));
          }
        } catch {
          // the power failed
        }
        fs.powerUp(mode);
        const after = await LargeObjectStore.open(fs);
        if (acknowledged < 0) {
          // Never acknowledged: it may or may not exist, and then holds nothing.
          if (after.has("img")) expect((await after.info("img"))!.size).toBe(0);
          continue;
        }
        const info = await after.info("img");
        expect(info, `step ${step}`).toBeDefined();
        expect(info!.size).toBeGreaterThanOrEqual(acknowledged);
        // The writer cuts the object back to what it knows it wrote, and carries on from there.
        after.reserve("img", bytes.length);
        await after.truncate("img", acknowledged);
        for (let at = acknowledged; at < bytes.length; at += CHUNK)
          await after.append("img", at, bytes.subarray(at, at + CHUNK));
        expect(await after.md5("img"), `step ${step}`).toBe(md5Hex(bytes));
        if (acknowledged === bytes.length) break;
      }
    },
  );
});
