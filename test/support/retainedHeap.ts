import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

setFlagsFromString("--expose-gc");
/** V8's collector, reached without starting Node with --expose-gc. */
const collect = runInNewContext("gc") as () => void;

function heapAndBuffers(): number {
  for (let i = 0; i < 3; i++) collect();
  // Typed arrays keep their bytes outside V8's heap: counted with it.
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/**
 * Heap bytes (with typed arrays' backing stores) retained per object: `count` objects made by `make` (and brought to the state
 * measured by `use`), held, and measured after full collections against the heap before them.
 * Averaged over many objects, it is steady to a few per cent: a bound tested with it stays
 * deterministic as long as the figure sits well away from it.
 */
export async function retainedBytesEach<T>(
  count: number,
  make: (i: number) => T,
  use: (object: T, i: number) => void | Promise<void> = () => undefined,
): Promise<number> {
  const held: T[] = new Array<T>(count);
  const before = heapAndBuffers();
  for (let i = 0; i < count; i++) {
    held[i] = make(i);
    await use(held[i]!, i);
  }
  const after = heapAndBuffers();
  const each = (after - before) / count;
  held.length = 0;
  return each;
}

/** Heap bytes (with typed arrays' backing stores) that `work` leaves retained once it is done. */
export async function retainedBytesBy(work: () => Promise<void>): Promise<number> {
  const before = heapAndBuffers();
  await work();
  return heapAndBuffers() - before;
}
