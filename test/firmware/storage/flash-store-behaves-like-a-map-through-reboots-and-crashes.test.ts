import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FlashKvStore } from "../../../firmware/storage/flash/FlashKvStore.js";
import { MemoryFlashFs } from "../../../firmware/storage/flash/MemoryFlashFs.js";
import { POWER_LOSS_MODES, PowerLossFlashFs } from "../../../firmware/storage/flash/PowerLossFlashFs.js";
import type { KvOp } from "../../../firmware/storage/KvStore.js";
import { applyOps, canonical } from "./support/crashScenario.js";

const key = fc.constantFrom("a", "ab", "abc", "b", "b\u001f1", "b\u001f2", "\ud83d", "é");
const value = fc.uint8Array({ maxLength: 120 });
const op: fc.Arbitrary<KvOp> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant("put" as const), key, value }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant("delete" as const), key }) },
  {
    weight: 1,
    arbitrary: fc.record({
      op: fc.constant("deletePrefix" as const),
      prefix: fc.constantFrom("", "a", "b\u001f"),
    }),
  },
);
type Command = { kind: "commit"; ops: KvOp[] } | { kind: "compact" } | { kind: "reboot" };
const command: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.record({
      kind: fc.constant("commit" as const),
      ops: fc.array(op, { minLength: 1, maxLength: 5 }),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: "compact" as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: "reboot" as const }) },
);

async function flashBytes(fs: MemoryFlashFs): Promise<number> {
  let total = 0;
  for (const name of await fs.list()) total += (await fs.read(name))!.length;
  return total;
}

describe("the flash store, against a plain map", () => {
  it("holds what the map holds through commits, compactions and reboots, and counts its bytes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(command, { maxLength: 40 }),
        fc.integer({ min: 64, max: 2048 }),
        async (commands, threshold) => {
          const fs = new MemoryFlashFs();
          const options = { compactionThreshold: threshold };
          let store = new FlashKvStore(fs, options);
          await store.open();
          const model = new Map<string, Uint8Array>();
          for (const c of commands) {
            if (c.kind === "commit") {
              await store.commit(c.ops);
              applyOps(model, c.ops);
            } else if (c.kind === "compact") {
              await store.compact();
            } else {
              await store.close();
              store = new FlashKvStore(fs, options);
              const snapshot = await store.open();
              expect(snapshot.recovery).toBeUndefined();
              expect(canonical(snapshot.records)).toBe(canonical(model));
            }
            expect(store.stats.liveRecords).toBe(model.size);
          }
          await store.close();
          const reopened = new FlashKvStore(fs, options);
          expect(canonical((await reopened.open()).records)).toBe(canonical(model));
          expect(reopened.usage().used).toBe(await flashBytes(fs));
        },
      ),
      { numRuns: 150 },
    );
  });

  it("after a power loss at any point, in any mode, holds the acknowledged state or that plus the write in flight", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(op, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 25 }),
        fc.nat(),
        fc.constantFrom(...POWER_LOSS_MODES),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (batches, crashPick, mode, tearAt) => {
          const fs = new PowerLossFlashFs();
          const options = { compactionThreshold: 128, capacity: 4096 };
          // Count the steps of an uninterrupted run, then crash somewhere inside it.
          const dry = new PowerLossFlashFs();
          const dryStore = new FlashKvStore(dry, options);
          await dryStore.open();
          for (const ops of batches) await dryStore.commit(ops).catch(() => undefined);
          await dryStore.close();
          fs.failAtStep(1 + (crashPick % dry.steps));

          const acknowledged = new Map<string, Uint8Array>();
          let inflight: KvOp[] | undefined;
          const store = new FlashKvStore(fs, options);
          try {
            await store.open();
            for (const ops of batches) {
              inflight = ops;
              try {
                await store.commit(ops);
                applyOps(acknowledged, ops);
              } catch (error) {
                if (!fs.powered) throw error;
              }
              inflight = undefined;
            }
            await store.close();
          } catch (error) {
            if (fs.powered) throw error;
          }
          expect(fs.powered).toBe(false);
          fs.powerUp(mode, { tear: (n) => Math.floor(n * tearAt) });
          const snapshot = await new FlashKvStore(fs, options).open();
          const got = canonical(snapshot.records);
          const withInflight = new Map(acknowledged);
          if (inflight) applyOps(withInflight, inflight);
          expect([canonical(acknowledged), canonical(withInflight)]).toContain(got);
        },
      ),
      { numRuns: 400 },
    );
  });
});
