import { describe, expect, it } from "vitest";
import { FlashKvStore } from "../../../firmware/storage/flash/FlashKvStore.js";
import { MemoryFlashFs } from "../../../firmware/storage/flash/MemoryFlashFs.js";
import { MeteredFlashFs } from "../../../firmware/storage/flash/MeteredFlashFs.js";
import type { KvOp, KvStore } from "../../../firmware/storage/KvStore.js";
import { Notebox } from "../../../firmware/storage/Notebox.js";

/** Counts the bytes of note records the notebox hands to the store. */
function countingNotes(inner: KvStore): KvStore & { noteBytes: number } {
  const counter = {
    noteBytes: 0,
    open: () => inner.open(),
    usage: () => inner.usage(),
    close: () => inner.close(),
    commit(ops: readonly KvOp[]) {
      for (const op of ops)
        if (op.op === "put" && op.key.startsWith("n\u001f")) counter.noteBytes += op.value.length;
      return inner.commit(ops);
    },
  };
  return counter;
}

async function amplification(
  run: (box: Notebox) => Promise<void>,
): Promise<{ ratio: number; compactions: number }> {
  const fs = new MeteredFlashFs(new MemoryFlashFs());
  const store = new FlashKvStore(fs, { capacity: 16 * 1024 * 1024, compactionThreshold: 16 * 1024 });
  const counted = countingNotes(store);
  const box = await Notebox.open(counted);
  const opened = fs.traffic.bytesWritten;
  await run(box);
  await store.close();
  return {
    ratio: (fs.traffic.bytesWritten - opened) / counted.noteBytes,
    compactions: store.stats.compactions,
  };
}

const body = (i: number) => ({ temp: 20.5 + (i % 7), humidity: 41, n: i });

describe("write amplification, compaction included", () => {
  it("stays under 3 for a queue consumed as fast as notes arrive, and for one that keeps a backlog", async () => {
    const drained = await amplification(async (box) => {
      for (let i = 0; i < 6000; i++) {
        await box.transact(() => box.appendToQueue("data.qo", { body: body(i), time: i }));
        if (i % 50 === 49) {
          const file = box.file("data.qo")!;
          await box.transact(() => [...file.notes.keys()].forEach((id) => box.removeNote(file, id)));
        }
      }
    });
    const backlog = await amplification(async (box) => {
      for (let i = 0; i < 12000; i++) {
        await box.transact(() => {
          box.appendToQueue("data.qo", { body: body(i), time: i });
          const file = box.file("data.qo")!;
          if (file.total > 1000) box.removeNote(file, file.oldest()!.id);
        });
      }
    });
    expect(drained.compactions).toBeGreaterThan(3);
    expect(backlog.compactions).toBeGreaterThan(3);
    expect(drained.ratio).toBeLessThanOrEqual(3);
    expect(backlog.ratio).toBeLessThanOrEqual(3);
  });

  it("stays under 3 for database notes updated in place", async () => {
    const updated = await amplification(async (box) => {
      const file = await box.transact(() => box.ensureFile("state.db"));
      for (let i = 0; i < 8000; i++) {
        await box.transact(() =>
          box.putNote(file, { id: `s${i % 100}`, body: body(i), time: i, updates: 0 }),
        );
      }
    });
    expect(updated.compactions).toBeGreaterThan(3);
    expect(updated.ratio).toBeLessThanOrEqual(3);
  });
});
