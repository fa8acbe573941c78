import fc from "fast-check";
import { crc32 } from "../../../core/crc32.js";
import { crc32 as zlibCrc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import {
  BatchWriter,
  decodeBatch,
  encodeKey,
  keyByteLength,
} from "../../../firmware/storage/flash/BatchCodec.js";
import {
  checkFileHeader,
  encodeFileHeader,
  encodeFrame,
  FrameType,
  readFrameAt,
} from "../../../firmware/storage/flash/JournalFormat.js";
import { replayJournal } from "../../../firmware/storage/flash/JournalReader.js";
import { checkSuperblock, encodeSuperblock } from "../../../firmware/storage/flash/Superblock.js";
import type { KvOp } from "../../../firmware/storage/KvStore.js";

/**
 * Any JS string, lone surrogates included (keys come from host JSON), and ASCII ones, the keys a
 * notebox nearly always has (they take an encoding path of their own).
 */
const anyKey = fc.oneof(fc.string({ unit: "binary", maxLength: 40 }), fc.string({ maxLength: 40 }));
const anyOp: fc.Arbitrary<KvOp> = fc.oneof(
  fc.record({ op: fc.constant("put" as const), key: anyKey, value: fc.uint8Array({ maxLength: 300 }) }),
  fc.record({ op: fc.constant("delete" as const), key: anyKey }),
  fc.record({ op: fc.constant("deletePrefix" as const), prefix: anyKey }),
);

describe("the journal format", () => {
  it("decodes every batch it encodes", () => {
    fc.assert(
      fc.property(fc.array(anyOp, { maxLength: 20 }), (ops) => {
        expect(decodeBatch(BatchWriter.encode(ops))).toEqual(ops);
      }),
    );
  });

  it("knows a key's encoded length without encoding it", () => {
    fc.assert(
      fc.property(anyKey, (key) => {
        expect(keyByteLength(key)).toBe(encodeKey(key).bytes.length);
      }),
    );
  });

  it("reads back every frame it writes, and no frame with any bit flipped", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(FrameType.base, FrameType.baseEnd, FrameType.commit),
        fc.integer({ min: 1, max: 0xffffffff }),
        fc.uint8Array({ maxLength: 200 }),
        fc.nat(),
        (type, sequence, payload, flip) => {
          const frame = encodeFrame(type, sequence, payload);
          const read = readFrameAt(frame, 0);
          expect(read?.type).toBe(type);
          expect(read?.sequence).toBe(sequence);
          expect(read?.payload).toEqual(payload);
          expect(read?.end).toBe(frame.length);
          const bit = flip % (frame.length * 8);
          frame[bit >> 3]! ^= 1 << (bit & 7);
          expect(readFrameAt(frame, 0)).toBeUndefined();
        },
      ),
    );
  });

  it("checks file headers: its own, damaged ones, other files", () => {
    expect(checkFileHeader(encodeFileHeader(42))).toEqual({ ok: true, generation: 42 });
    const damaged = encodeFileHeader(42);
    damaged[13]! ^= 4;
    expect(checkFileHeader(damaged)).toEqual({ ok: false, problem: "damaged" });
    expect(checkFileHeader(new TextEncoder().encode("hello world, not a journal"))).toEqual({
      ok: false,
      problem: "not-a-journal",
    });
    expect(checkFileHeader(encodeFileHeader(1).subarray(0, 12))).toEqual({ ok: false, problem: "damaged" });
  });

  it("replays any bytes at all without throwing, accounting for every byte", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 2000 }), (bytes) => {
        const replay = replayJournal(bytes);
        expect(replay.end + replay.tornBytes).toBe(Math.max(bytes.length, Math.min(20, bytes.length)));
      }),
      { numRuns: 500 },
    );
  });

  it("replays a journal spliced with garbage without throwing or inventing records", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(anyOp, { minLength: 1, maxLength: 4 }), { maxLength: 8 }),
        fc.uint8Array({ maxLength: 64 }),
        fc.nat(),
        (batches, garbage, where) => {
          const parts = [encodeFileHeader(1), encodeFrame(FrameType.baseEnd, 1, new Uint8Array(8))];
          batches.forEach((ops, i) =>
            parts.push(encodeFrame(FrameType.commit, i + 2, BatchWriter.encode(ops))),
          );
          const whole = Uint8Array.from(parts.flatMap((p) => [...p]));
          const at = where % (whole.length + 1);
          const spliced = Uint8Array.from([...whole.subarray(0, at), ...garbage, ...whole.subarray(at)]);
          const replay = replayJournal(spliced);
          const values = new Set(batches.flat().flatMap((op) => (op.op === "put" ? [op.key] : [])));
          for (const key of replay.records.keys()) expect(values.has(key)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("checks superblocks: its own, newer, damaged, foreign, garbage", () => {
    const own = encodeSuperblock({ version: 1, capacity: 1000 });
    expect(checkSuperblock(own)).toEqual({ ok: true, superblock: { version: 1, capacity: 1000 } });
    expect(checkSuperblock(encodeSuperblock({ version: 9, capacity: 1000 }))).toEqual({
      ok: false,
      problem: "too-new",
      version: 9,
    });
    expect(checkSuperblock(new TextEncoder().encode('{"name":"my-app","version":"1.0.0"}'))).toEqual({
      ok: false,
      problem: "not-ours",
    });
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), (bytes) => {
        expect(["damaged", "not-ours", undefined]).toContain(
          (checkSuperblock(bytes) as { problem?: string }).problem,
        );
      }),
    );
    fc.assert(
      fc.property(fc.nat(), (flip) => {
        const bytes = own.slice();
        const bit = flip % (bytes.length * 8);
        bytes[bit >> 3]! ^= 1 << (bit & 7);
        const check = checkSuperblock(bytes);
        // A flipped bit never passes as a good superblock, nor as a newer one.
        if (check.ok) expect(check.superblock).toEqual({ version: 1, capacity: 1000 });
        else expect(check.problem).not.toBe("too-new");
      }),
    );
  });
});

describe("the sliced CRC-32 (core/crc32.ts)", () => {
  it("equals zlib's CRC-32 for any bytes and any starting value", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.nat({ max: 0xffffffff }), (bytes, previous) => {
        expect(crc32(bytes, previous)).toBe(zlibCrc32(bytes, previous));
      }),
    );
    expect(crc32(new TextEncoder().encode("123456789"))).toBe(0xcbf43926);
  });
});
