// CPU time for benchmarks that compare two paths on a loaded machine: a thread waiting for a core
// is not counted, as it is in wall time. The calling thread's own time where the platform tells it
// (Linux: /proc/thread-self/schedstat, whose first field is nanoseconds on a CPU), else the
// process's (every thread, `process.cpuUsage`).
import { readFileSync } from "node:fs";

/** Milliseconds on a CPU from the text of a `schedstat` file, or undefined when it is not one. */
export function schedstatCpuMs(text: string): number | undefined {
  const first = /^(\d+) \d+ \d+\s*$/.exec(text)?.[1];
  return first === undefined ? undefined : Number(first) / 1e6;
}

function threadSchedstat(): number | undefined {
  try {
    return schedstatCpuMs(readFileSync("/proc/thread-self/schedstat", "utf8"));
  } catch {
    return undefined;
  }
}

/** What `cpuClock` measures: the calling thread alone, or every thread of the process. */
export type CpuScope = "thread" | "process";

/** A clock of CPU milliseconds (read it before and after, subtract) and what it counts. */
export function cpuClock(): { scope: CpuScope; now: () => number } {
  if (threadSchedstat() !== undefined) return { scope: "thread", now: () => threadSchedstat()! };
  return {
    scope: "process",
    now: () => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    },
  };
}
