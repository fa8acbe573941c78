import type { Random } from "../../core/Random.js";

/**
 * Which bytes of one direction of a link an impairment hits. Exactly one way of choosing:
 * - `at` (+ `count`): runs of `count` bytes (default 1) starting at these positions (0-based,
 *   counted at the impairment's input, in that direction only);
 * - `every` (+ `offset`): every n-th byte, starting at `offset` (default n-1);
 * - `rate`: each byte independently with this probability, drawn from the scenario's seed.
 */
export interface ByteSelection {
  readonly at?: number | readonly number[];
  readonly count?: number;
  readonly every?: number;
  readonly offset?: number;
  readonly rate?: number;
}

/** Decides, byte by byte in order, whether an impairment applies. */
export class ByteSelector {
  readonly #runs: readonly (readonly [number, number])[] = [];
  readonly #every: number | undefined;
  readonly #offset: number;
  readonly #rate: number | undefined;
  readonly #random: Random | undefined;
  #run = 0;

  constructor(selection: ByteSelection, random?: Random) {
    const ways = [selection.at !== undefined, selection.every !== undefined, selection.rate !== undefined];
    if (ways.filter(Boolean).length !== 1) {
      throw new Error(
        `a byte selection needs exactly one of at, every or rate; got ${JSON.stringify(selection)}`,
      );
    }
    if (selection.at !== undefined) {
      const count = selection.count ?? 1;
      if (!Number.isSafeInteger(count) || count < 1) throw new Error(`count must be >= 1, got ${count}`);
      const starts = typeof selection.at === "number" ? [selection.at] : [...selection.at];
      for (const s of starts) {
        if (!Number.isSafeInteger(s) || s < 0) throw new Error(`at must be byte positions >= 0, got ${s}`);
      }
      this.#runs = starts.sort((a, b) => a - b).map((s) => [s, s + count] as const);
    }
    if (selection.every !== undefined && (!Number.isSafeInteger(selection.every) || selection.every < 1)) {
      throw new Error(`every must be an integer >= 1, got ${selection.every}`);
    }
    this.#every = selection.every;
    this.#offset = selection.offset ?? (selection.every ?? 1) - 1;
    if (selection.rate !== undefined) {
      if (!(selection.rate >= 0 && selection.rate <= 1))
        throw new Error(`rate must be in [0, 1], got ${selection.rate}`);
      if (!random) throw new Error("a rate selection needs a seeded random source");
    }
    this.#rate = selection.rate;
    this.#random = random;
  }

  /** Whether the byte at `position` is hit. Call with increasing positions. */
  hits(position: number): boolean {
    if (this.#rate !== undefined) return this.#random!.nextUint32() / 0x1_0000_0000 < this.#rate;
    if (this.#every !== undefined) {
      return position >= this.#offset && (position - this.#offset) % this.#every === 0;
    }
    while (this.#run < this.#runs.length && this.#runs[this.#run]![1] <= position) this.#run++;
    for (let i = this.#run; i < this.#runs.length; i++) {
      const [start, end] = this.#runs[i]!;
      if (start > position) return false;
      if (position < end) return true;
    }
    return false;
  }
}
