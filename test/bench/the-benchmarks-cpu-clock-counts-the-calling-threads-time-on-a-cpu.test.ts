import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cpuClock, schedstatCpuMs } from "../../bench/threadCpu.js";

// bench/sync.ts compares the sync with its ceiling by CPU time too: its thread's, read from
// Linux's schedstat (nanoseconds on a CPU, nanoseconds waiting for one, time slices), else the
// process's. A thread waiting for a core on a loaded machine adds wall time, not CPU time.

describe("the benchmarks' CPU clock", () => {
  it("reads the time on a CPU from a schedstat line, and nothing from anything else", () => {
    expect(schedstatCpuMs("123456789 2000 30\n")).toBe(123.456789);
    expect(schedstatCpuMs("0 0 0")).toBe(0);
    for (const text of ["", "abc", "1 2", "1 2 3 4", "-1 2 3", "1.5 2 3"])
      expect(schedstatCpuMs(text)).toBeUndefined();
  });

  it("counts the calling thread where Linux tells it, and moves only forward while it works", () => {
    const clock = cpuClock();
    expect(clock.scope).toBe(existsSync("/proc/thread-self/schedstat") ? "thread" : "process");
    const from = clock.now();
    // Work until the clock has moved (at most two seconds of wall time): it must, and never back.
    const until = performance.now() + 2000;
    let last = from;
    let spin = 0;
    while (clock.now() === from && performance.now() < until) {
      for (let i = 0; i < 100_000; i++) spin += i % 7;
      const now = clock.now();
      expect(now).toBeGreaterThanOrEqual(last);
      last = now;
    }
    expect(spin).toBeGreaterThan(0);
    expect(clock.now()).toBeGreaterThan(from);
  });
});
