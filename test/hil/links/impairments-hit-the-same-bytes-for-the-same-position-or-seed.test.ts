import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SeededRandom } from "../../../core/SeededRandom.js";
import { FakeClock } from "../../../runtime/FakeClock.js";
import { BaudPacer } from "../../../hil/impair/BaudPacer.js";
import { ByteSelector } from "../../../hil/impair/ByteSelector.js";
import type { ImpairmentEvent } from "../../../hil/impair/ImpairmentEvent.js";
import { buildImpairment, buildImpairments, type ImpairmentSpec } from "../../../hil/impair/Impairments.js";
import { LinkOutage } from "../../../hil/impair/LinkOutage.js";
import { Stall } from "../../../hil/impair/Stall.js";
import { chainStages, type ByteStage } from "../../../hil/stages/ByteStage.js";

const text = (s: string) => new TextEncoder().encode(s);
const str = (b: number[]) => String.fromCharCode(...b);

/** Runs chunks through a stage; returns everything that came out (and each output chunk). */
function through(stage: ByteStage, chunks: Uint8Array[]): { out: number[]; chunks: number[][] } {
  const out: number[] = [];
  const seen: number[][] = [];
  const input = chainStages([stage], (b) => {
    out.push(...b);
    seen.push([...b]);
  });
  for (const c of chunks) input(c);
  return { out, chunks: seen };
}

function stage(spec: ImpairmentSpec, seed: number | string = 1, events?: ImpairmentEvent[]): ByteStage {
  return buildImpairment(spec, {
    clock: new FakeClock(),
    random: new SeededRandom(seed),
    report: (e) => events?.push(e),
  });
}

describe("byte selection", () => {
  it("picks runs at positions, every n-th byte, or a seeded rate, and refuses ambiguity", () => {
    const hits = (s: ConstructorParameters<typeof ByteSelector>[0], n = 12) => {
      const sel = new ByteSelector(s, new SeededRandom(3));
      return Array.from({ length: n }, (_, i) => (sel.hits(i) ? i : -1)).filter((i) => i >= 0);
    };
    expect(hits({ at: [5, 1], count: 2 })).toEqual([1, 2, 5, 6]);
    expect(hits({ every: 4 })).toEqual([3, 7, 11]);
    expect(hits({ every: 4, offset: 0 })).toEqual([0, 4, 8]);
    expect(hits({ rate: 0 })).toEqual([]);
    expect(hits({ rate: 1 })).toHaveLength(12);
    expect(hits({ rate: 0.5 }, 1000).length).toBeGreaterThan(400);
    expect(hits({ rate: 0.5 }, 100)).toEqual(hits({ rate: 0.5 }, 100));
    expect(() => new ByteSelector({})).toThrow(/exactly one/);
    expect(() => new ByteSelector({ at: 1, every: 2 })).toThrow(/exactly one/);
    expect(() => new ByteSelector({ at: -1 })).toThrow(/positions/);
    expect(() => new ByteSelector({ rate: 2 })).toThrow(/rate/);
    expect(() => new ByteSelector({ rate: 0.1 })).toThrow(/seeded/);
  });
});

describe("impairments", () => {
  it("drop removes the selected bytes, counted across writes, and says what it dropped", () => {
    const events: ImpairmentEvent[] = [];
    const { out } = through(stage({ drop: { at: [2, 6], count: 2 } }, 1, events), [
      text("abcd"),
      text("efghij"),
    ]);
    expect(str(out)).toBe("abefij");
    expect(events.map((e) => [e.impairment, e.position, str([...e.bytes])])).toEqual([
      ["drop", 2, "cd"],
      ["drop", 6, "gh"],
    ]);
  });

  it("duplicate repeats, flip XORs with a mask or a seeded single bit, insert adds bytes before", () => {
    expect(str(through(stage({ duplicate: { at: 1 } }), [text("abc")]).out)).toBe("abbc");
    expect(str(through(stage({ flip: { at: 0, mask: 0x20 } }), [text("abc")]).out)).toBe("Abc");
    const flipped = through(stage({ flip: { every: 1 } }, 9), [text("aaaaaaaa")]).out;
    for (const b of flipped) expect([1, 2, 4, 8, 16, 32, 64, 128]).toContain(b ^ 0x61);
    expect(str(through(stage({ insert: { at: 1, bytes: "5858" } }), [text("abc")]).out)).toBe("aXXbc");
    expect(str(through(stage({ insert: { at: [0, 3], bytes: [0x2a] } }), [text("ab"), text("cd")]).out)).toBe(
      "*abc*d",
    );
    expect(through(stage({ insert: { at: 0, length: 5 } }), [text("z")]).out).toHaveLength(6);
  });

  it("the same seed hits the same bytes; another seed hits others", () => {
    const run = (seed: number) => through(stage({ flip: { rate: 0.1 } }, seed), [new Uint8Array(2000)]).out;
    expect(run(1)).toEqual(run(1));
    expect(run(1)).not.toEqual(run(2));
  });

  it("split changes only the chunking, never the bytes", () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer(),
        (data, max, seed) => {
          const fixed = through(stage({ split: { size: max } }), [data]);
          const random = through(stage({ split: { max } }, seed), [data]);
          expect(fixed.out).toEqual([...data]);
          expect(random.out).toEqual([...data]);
          for (const c of fixed.chunks) expect(c.length).toBeLessThanOrEqual(max);
          for (const c of random.chunks) expect(c.length).toBeLessThanOrEqual(max);
        },
      ),
    );
  });

  it("seeded drops leave the bytes in order: the output is a subsequence of the input", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), fc.integer(), (data, seed) => {
        const { out } = through(stage({ drop: { rate: 0.3 } }, seed), [data]);
        let i = 0;
        for (const b of out) {
          while (i < data.length && data[i] !== b) i++;
          expect(i).toBeLessThan(data.length);
          i++;
        }
      }),
    );
  });

  it("rejects impairments it does not know, with the list of those it does", () => {
    expect(() => stage({ garble: {} } as never)).toThrow(/one of drop, duplicate, flip/);
    expect(() => stage({ insert: { at: 0, bytes: "xyz" } })).toThrow(/not hex/);
    expect(() => stage({ split: {} })).toThrow(/exactly one of size or max/);
  });
});

describe("timed impairments on the virtual clock", () => {
  it("baud pacing spreads a burst at the line rate: 10 bits a byte", async () => {
    const clock = new FakeClock();
    const pacer = new BaudPacer(clock, { baud: 9600 });
    const arrivals: [number, number][] = [];
    const t0 = clock.now();
    const input = chainStages([pacer], (b) => arrivals.push([clock.now() - t0, b.length]));
    input(new Uint8Array(96));
    expect(pacer.held).toBe(96);
    await clock.advance(50);
    const soFar = arrivals.reduce((n, [, k]) => n + k, 0);
    expect(soFar).toBe(48); // 48 bytes of 1.0417 ms end exactly at 50 ms
    await clock.advance(1000);
    expect(arrivals.reduce((n, [, k]) => n + k, 0)).toBe(96);
    expect(arrivals.at(-1)![0]).toBe(100); // 96 bytes take exactly 100 ms at 9600 baud
    // Back-to-back writes queue behind each other.
    const t1 = clock.now() - t0;
    input(new Uint8Array(10));
    input(new Uint8Array(10));
    await clock.advance(100);
    expect(arrivals.at(-1)![0] - t1).toBe(21); // ceil(20 * 1.0417)
  });

  it("stall holds bytes for a while and lets them through in order; by position or on demand", async () => {
    const clock = new FakeClock();
    const stall = new Stall(clock, { atByte: 3, ms: 100 });
    const out: [number, string][] = [];
    const t0 = clock.now();
    const input = chainStages([stall], (b) => out.push([clock.now() - t0, str([...b])]));
    input(text("abcdef"));
    input(text("gh"));
    expect(out).toEqual([[0, "abc"]]);
    expect(stall.held).toBe(5);
    await clock.advance(100);
    expect(out).toEqual([
      [0, "abc"],
      [100, "def"],
      [100, "gh"],
    ]);
    stall.stall(30);
    input(text("i"));
    await clock.advance(29);
    expect(out).toHaveLength(3);
    await clock.advance(1);
    expect(out.at(-1)).toEqual([130, "i"]);
  });

  it("an outage loses bytes both ways while the link is down, on demand or on a schedule", async () => {
    const clock = new FakeClock();
    const outage = new LinkOutage(clock, { schedule: [{ at: 10, for: 20 }] });
    const toModule: string[] = [];
    const toHost: string[] = [];
    const h2m = chainStages([outage.toModule], (b) => toModule.push(str([...b])));
    const m2h = chainStages([outage.toHost], (b) => toHost.push(str([...b])));
    const changes: boolean[] = [];
    outage.onChange((c) => changes.push(c));
    h2m(text("a"));
    await clock.advance(15);
    h2m(text("lost"));
    m2h(text("lost"));
    await clock.advance(20);
    h2m(text("b"));
    m2h(text("c"));
    outage.disconnect();
    h2m(text("lost"));
    outage.reconnect();
    expect(toModule).toEqual(["a", "b"]);
    expect(toHost).toEqual(["c"]);
    expect(changes).toEqual([false, true, false, true]);
  });

  it("builds both directions from JSON, each impairment with its own seed", () => {
    const clock = new FakeClock();
    const spec = { h2m: [{ flip: { rate: 0.2 } }, { drop: { rate: 0.2 } }], m2h: [{ flip: { rate: 0.2 } }] };
    const run = (seed: string) => {
      const built = buildImpairments(spec, { clock, seed });
      return through(built.h2m[1]!, [new Uint8Array(100).fill(1)]).out;
    };
    expect(run("s")).toEqual(run("s"));
    // Adding an impairment in front does not change what the second one does.
    const alone = buildImpairments(
      { h2m: [{ flip: { rate: 0 } }, { drop: { rate: 0.2 } }] },
      { clock, seed: "s" },
    );
    expect(through(alone.h2m[1]!, [new Uint8Array(100).fill(1)]).out).toEqual(run("s"));
  });
});
