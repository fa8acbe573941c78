import { randomInt, type Random } from "../../core/Random.js";
import { ByteStage } from "../stages/ByteStage.js";

/**
 * Delivers each write in smaller pieces: of `size` bytes, or of sizes 1..`max` drawn from the
 * seed, as USB packets, TCP segments and UART interrupts chop a stream. Content and order are
 * unchanged; only the chunking a receiver sees differs.
 */
export class SplitWrites extends ByteStage {
  readonly #size: number | undefined;
  readonly #max: number;
  readonly #random: Random | undefined;

  constructor(options: { size?: number; max?: number; random?: Random }) {
    super();
    const { size, max } = options;
    if ((size === undefined) === (max === undefined))
      throw new Error("split needs exactly one of size or max");
    const n = (size ?? max)!;
    if (!Number.isSafeInteger(n) || n < 1) throw new Error(`split size must be >= 1, got ${n}`);
    if (max !== undefined && !options.random) throw new Error("split with max needs a seed");
    this.#size = size;
    this.#max = max ?? 1;
    this.#random = options.random;
  }

  protected receive(bytes: Uint8Array): void {
    let offset = 0;
    while (offset < bytes.length) {
      const n = this.#size ?? 1 + randomInt(this.#random!, this.#max);
      this.emit(bytes.subarray(offset, offset + n));
      offset += n;
    }
  }
}
