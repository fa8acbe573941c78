import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { BaudPacer } from "../../../hil/impair/BaudPacer.js";
import { chainStages } from "../../../hil/stages/ByteStage.js";
import { SimUartReceiver, type UartOverflow } from "../../../hil/links/SimUartReceiver.js";

function rig(options: ConstructorParameters<typeof SimUartReceiver>[1] = {}) {
  const clock = new FakeClock();
  const rx = new SimUartReceiver(clock, options);
  const out: number[] = [];
  const overflows: UartOverflow[] = [];
  rx.onOverflow((o) => overflows.push(o));
  const input = chainStages([rx], (b) => out.push(...b));
  return { clock, rx, out, overflows, input };
}

describe("the module's serial receive buffer", () => {
  it("keeps 1500 bytes of a burst, loses the rest, and says which", async () => {
    const { clock, rx, out, overflows, input } = rig();
    const burst = Uint8Array.from({ length: 2000 }, (_, i) => i & 0xff);
    input(burst);
    expect(rx.held).toBe(1500);
    expect(overflows).toHaveLength(1);
    expect(overflows[0]!.position).toBe(1500);
    expect([...overflows[0]!.bytes]).toEqual([...burst.subarray(1500)]);
    expect(rx.stats).toEqual({ overflows: 1, droppedBytes: 500, peak: 1500 });
    // 4000 bytes a second in 10 ms ticks: 40 bytes a tick.
    await clock.advance(10);
    expect(out).toHaveLength(40);
    await clock.advance(370); // 1500 bytes take 38 ticks
    expect(out).toEqual([...burst.subarray(0, 1500)]);
    expect(rx.held).toBe(0);
  });

  it("never overflows at 9600 baud, however much the host sends without pausing", async () => {
    const clock = new FakeClock();
    const rx = new SimUartReceiver(clock);
    const out: number[] = [];
    const input = chainStages([new BaudPacer(clock, { baud: 9600 }), rx], (b) => out.push(...b));
    input(new Uint8Array(20_000).fill(0x41));
    await clock.advance(25_000);
    expect(out).toHaveLength(20_000);
    expect(rx.stats.overflows).toBe(0);
    expect(rx.stats.peak).toBeLessThan(50);
  });

  it("overflows at 115200 baud when a host sends a long request in one go", async () => {
    const clock = new FakeClock();
    const rx = new SimUartReceiver(clock);
    const input = chainStages([new BaudPacer(clock, { baud: 115_200 }), rx], () => undefined);
    input(new Uint8Array(1900));
    await clock.advance(5000);
    expect(rx.stats.overflows).toBe(0);
    input(new Uint8Array(3000));
    await clock.advance(5000);
    expect(rx.stats.droppedBytes).toBeGreaterThan(0);
  });

  it("passes the binary line after card.binary.put straight through, then meters text again", async () => {
    const { clock, rx, out, input } = rig();
    rx.expectBinaryLine();
    const binary = new Uint8Array(10_000).fill(0x33);
    input(Uint8Array.from([...binary, 0x0a, 0x7b, 0x7d]));
    expect(out).toHaveLength(10_001);
    expect(rx.held).toBe(2);
    await clock.advance(10);
    expect(out).toHaveLength(10_003);
    expect(rx.stats.overflows).toBe(0);
  });

  it("whatever the arrival pattern, what comes out is what went in minus what it said it lost", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 1, max: 900 }), fc.integer({ min: 0, max: 400 })), {
          maxLength: 12,
        }),
        fc.integer({ min: 50, max: 3000 }),
        async (arrivals, capacity) => {
          const { clock, rx, out, overflows, input } = rig({ capacity });
          const sent: number[] = [];
          let n = 0;
          for (const [length, gap] of arrivals) {
            const chunk = Uint8Array.from({ length }, () => n++ & 0xff);
            sent.push(...chunk);
            input(chunk);
            expect(rx.held).toBeLessThanOrEqual(capacity);
            await clock.advance(gap);
          }
          await clock.advance(60_000);
          const lost = new Set<number>();
          for (const o of overflows) for (let i = 0; i < o.bytes.length; i++) lost.add(o.position + i);
          expect(out).toEqual(sent.filter((_, i) => !lost.has(i)));
        },
      ),
      { numRuns: 60 },
    );
  });

  it("refuses nonsense sizes and rates", () => {
    const clock = new FakeClock();
    expect(() => new SimUartReceiver(clock, { capacity: 0 })).toThrow(/capacity/);
    expect(() => new SimUartReceiver(clock, { drainBytesPerSecond: 0 })).toThrow(/drainBytesPerSecond/);
    expect(() => new SimUartReceiver(clock, { drainIntervalMs: -1 })).toThrow(/drainIntervalMs/);
  });
});
