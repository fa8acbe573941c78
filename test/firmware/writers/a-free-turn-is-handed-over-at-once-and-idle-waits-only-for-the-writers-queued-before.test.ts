import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WriterQueue, type Turn } from "../../../firmware/WriterQueue.js";

describe("the writer queue", () => {
  it("hands a free turn over at once, and a held one only after every writer before released", async () => {
    const queue = new WriterQueue();
    const first = queue.take();
    // Nobody held or waited: the turn itself, no promise.
    expect(first).not.toBeInstanceOf(Promise);
    const second = queue.take();
    expect(second).toBeInstanceOf(Promise);
    expect(queue.waiting).toBe(1);
    let granted = false;
    void (second as Promise<Turn>).then(() => (granted = true));
    await Promise.resolve();
    expect(granted).toBe(false);
    (first as Turn).release();
    (first as Turn).release(); // twice: harmless, the third writer still waits
    const third = queue.take();
    expect(third).toBeInstanceOf(Promise);
    (await second).release();
    (await third).release();
    expect(queue.waiting).toBe(0);
    expect(queue.take()).not.toBeInstanceOf(Promise);
  });

  it("idle waits for the writers queued so far, not for those queued after", async () => {
    const queue = new WriterQueue();
    const a = queue.take() as Turn;
    const b = queue.take() as Promise<Turn>;
    let idle = false;
    void queue.idle().then(() => (idle = true));
    const c = queue.take() as Promise<Turn>;
    a.release();
    await Promise.resolve();
    expect(idle).toBe(false);
    (await b).release();
    await Promise.resolve();
    // c, queued after idle was asked for, still holds its turn.
    expect(idle).toBe(true);
    (await c).release();
    await expect(queue.idle()).resolves.toBeUndefined();
  });

  it("grants turns in arrival order, one at a time, however writers arrive and release", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(3), { minLength: 1, maxLength: 12 }), async (delays) => {
        const queue = new WriterQueue();
        const entered: number[] = [];
        let inside = 0;
        let most = 0;
        await Promise.all(
          delays.map((delay, i) =>
            queue.run(async () => {
              entered.push(i);
              inside++;
              most = Math.max(most, inside);
              for (let k = 0; k < delay; k++) await Promise.resolve();
              inside--;
            }),
          ),
        );
        expect(entered).toEqual(delays.map((_, i) => i));
        expect(most).toBe(1);
        await queue.idle();
        expect(queue.take()).not.toBeInstanceOf(Promise);
      }),
      { seed: 7, numRuns: 50 },
    );
  });
});
