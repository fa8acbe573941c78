/** Small helpers shared by the benchmarks: timing, percentiles, and a printed table. */
export interface Timing {
  readonly count: number;
  readonly seconds: number;
  readonly perSecond: number;
  readonly p50us: number;
  readonly p99us: number;
}

export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Runs `fn` `count` times in sequence (after `warmup` runs) and times each call. */
export async function timeSequential(
  count: number,
  fn: (i: number) => Promise<unknown> | unknown,
  warmup = Math.min(2000, count),
): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await fn(-1 - i);
  const samples = new Float64Array(count);
  const start = process.hrtime.bigint();
  for (let i = 0; i < count; i++) {
    const t0 = process.hrtime.bigint();
    await fn(i);
    samples[i] = Number(process.hrtime.bigint() - t0) / 1000;
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  samples.sort();
  return {
    count,
    seconds,
    perSecond: count / seconds,
    p50us: percentile(samples, 50),
    p99us: percentile(samples, 99),
  };
}

export function printTable(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n${title}`);
  console.table(rows);
}

export const fmt = (n: number, digits = 0) => Number(n.toFixed(digits));
