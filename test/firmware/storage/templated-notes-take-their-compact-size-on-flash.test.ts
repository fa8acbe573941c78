import { describe, expect, it } from "vitest";
import { Module } from "../../../firmware/Module.js";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { keyByteLength, putRecordSize } from "../../../firmware/storage/flash/BatchCodec.js";
import { FlashKvStore } from "../../../firmware/storage/flash/FlashKvStore.js";
import { frameHeaderSize } from "../../../firmware/storage/flash/JournalFormat.js";
import { MemoryFlashFs } from "../../../firmware/storage/flash/MemoryFlashFs.js";
import type { KvOp, KvStore } from "../../../firmware/storage/KvStore.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import type { JsonObject } from "../../../core/json.js";

describe("notes on flash", () => {
  it("take exactly their encoded size plus framing, so templated notes stay compact", async () => {
    const flash = new FlashKvStore(new MemoryFlashFs());
    let lastOps: readonly KvOp[] = [];
    const seen: KvStore = {
      open: () => flash.open(),
      usage: () => flash.usage(),
      close: () => flash.close(),
      commit(ops) {
        lastOps = ops;
        return flash.commit(ops);
      },
    };
    const module = await Module.boot({
      clock: new FakeClock(),
      random: new SeededRandom(1),
      store: seen,
      timeKnown: true,
    });
    const request = async (req: JsonObject) => {
      const reply = (await module.request(req))!;
      expect(reply["err"]).toBeUndefined();
      return reply;
    };
    const body = { temp: 21.5, humidity: 40.25, pressure: 1013.2, status: "ok" };
    /** Adds a note; returns its record's value size and how much the flash grew. */
    const add = async (file: string) => {
      const before = flash.usage().used;
      await request({ req: "note.add", file, body });
      const note = lastOps.find((op) => op.op === "put" && op.key.startsWith("n\u001f"));
      if (note?.op !== "put") throw new Error("note.add stored no note record");
      const payload = lastOps.reduce(
        (n, op) =>
          n +
          (op.op === "put"
            ? putRecordSize(keyByteLength(op.key), op.value.length)
            : 1 + 1 + keyByteLength(op.op === "delete" ? op.key : op.prefix)),
        0,
      );
      return { value: note.value.length, grew: flash.usage().used - before, payload };
    };

    await request({ req: "note.add", file: "plain.qo", body });
    const plain = await add("plain.qo");
    await request({
      req: "note.template",
      file: "compact.qo",
      body: { temp: 14.1, humidity: 14.1, pressure: 14.1, status: "10" },
    });
    await request({ req: "note.add", file: "compact.qo", body });
    const compact = await add("compact.qo");

    for (const stored of [plain, compact]) {
      // Nothing added beyond the record itself and 8-10 bytes of frame: no text encoding of values.
      expect(stored.grew - stored.payload).toBe(frameHeaderSize(stored.payload, 100));
    }
    expect(compact.value).toBeLessThan(plain.value);
    await module.close();
  });
});
