import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MemoryLink } from "../../../hil/links/MemoryLink.js";

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));
const bytes = (...b: number[]) => Uint8Array.from(b);

describe("MemoryLink", () => {
  it("delivers each write to the other end, in order, never inside write()", async () => {
    const [host, module] = MemoryLink.pair();
    const got: number[][] = [];
    module.onData((b) => got.push([...b]));
    host.write(bytes(1, 2));
    host.write(bytes(3));
    expect(got).toEqual([]);
    await settle();
    expect(got).toEqual([[1, 2], [3]]);
    expect(host.bytesWritten).toBe(3);
  });

  it("copies what is written, so a writer may reuse its buffer", async () => {
    const [host, module] = MemoryLink.pair();
    const got: number[][] = [];
    module.onData((b) => got.push([...b]));
    const buffer = bytes(7, 7);
    host.write(buffer);
    buffer.fill(0);
    await settle();
    expect(got).toEqual([[7, 7]]);
  });

  it("keeps bytes that arrive before the other end listens, ahead of later ones", async () => {
    const [host, module] = MemoryLink.pair();
    host.write(bytes(1));
    await settle();
    host.write(bytes(2));
    const got: number[] = [];
    module.onData((b) => got.push(...b));
    host.write(bytes(3));
    await settle();
    expect(got).toEqual([1, 2, 3]);
  });

  it("closing either end closes both once, and later writes go nowhere", async () => {
    const [host, module] = MemoryLink.pair();
    const closes: string[] = [];
    host.onClose(() => closes.push("host"));
    module.onClose(() => closes.push("module"));
    const got: number[] = [];
    host.onData((b) => got.push(...b));
    await module.close();
    await host.close();
    module.write(bytes(9));
    await settle();
    expect(closes.sort()).toEqual(["host", "module"]);
    expect(got).toEqual([]);
    expect(host.closed && module.closed).toBe(true);
    // A listener added after close is told at once.
    let late = false;
    host.onClose(() => (late = true));
    await settle();
    expect(late).toBe(true);
  });

  it("carries any interleaving of writes from both ends in order per direction", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.boolean(), fc.uint8Array({ minLength: 1, maxLength: 20 })), { maxLength: 30 }),
        async (writes) => {
          const [a, b] = MemoryLink.pair();
          const atA: number[] = [];
          const atB: number[] = [];
          a.onData((x) => atA.push(...x));
          b.onData((x) => atB.push(...x));
          for (const [fromA, data] of writes) (fromA ? a : b).write(data);
          await settle();
          expect(atB).toEqual(writes.filter(([fromA]) => fromA).flatMap(([, d]) => [...d]));
          expect(atA).toEqual(writes.filter(([fromA]) => !fromA).flatMap(([, d]) => [...d]));
        },
      ),
      { numRuns: 100 },
    );
  });
});
