import { describe, expect, it } from "vitest";
import type { KvOp } from "../../firmware/storage/KvStore.js";
import { MemoryKvStore } from "../../firmware/storage/MemoryKvStore.js";

class RecordingStore extends MemoryKvStore {
  last: readonly KvOp[] = [];
  override commit(ops: readonly KvOp[]): Promise<void> {
    this.last = ops;
    return super.commit(ops);
  }
}
import { Notebox } from "../../firmware/storage/Notebox.js";

describe("a notefile's change counter", () => {
  it("never goes back across reboots, whichever notes were removed", async () => {
    const store = new RecordingStore();
    let box = await Notebox.open(store);
    await box.transact(() => {
      for (let i = 0; i < 4; i++) box.appendToQueue("in.qi", { body: { i }, time: 0 });
    });
    const file = () => box.file("in.qi")!;
    expect(file().meta.ctr).toBe(4);
    // Removing an older note writes only its deletion.
    await box.transact(() => box.removeNote(file(), "1"));
    expect(store.last.map((op) => op.op)).toEqual(["delete"]);
    // Removing the newest one also stores the counter.
    await box.transact(() => box.removeNote(file(), "4"));
    expect(store.last.map((op) => op.op)).toEqual(["delete", "put"]);
    box = await Notebox.open(store);
    expect(file().meta.ctr).toBe(4);
    // Removing every note, the newest included, still keeps the counter.
    await box.transact(() => {
      for (const id of [...file().notes.keys()]) box.removeNote(file(), id);
    });
    box = await Notebox.open(store);
    expect(file().total).toBe(0);
    expect(file().meta.ctr).toBe(4);
    const next = await box.transact(() => box.appendToQueue("in.qi", { body: { i: 5 }, time: 0 }));
    expect(next.change).toBe(5);
    expect(next.id).toBe("5");
  });
});
