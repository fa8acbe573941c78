import { randomInt, type Random } from "../../core/Random.js";
import { ByteStage } from "../stages/ByteStage.js";
import type { ByteSelector } from "./ByteSelector.js";
import type { ImpairmentListener } from "./ImpairmentEvent.js";

/**
 * Corrupts the selected bytes by XOR with `mask`, or, without a mask, by flipping one bit chosen
 * from the seed (a single-bit error, the usual kind on a UART).
 */
export class FlipBits extends ByteStage {
  readonly #selector: ByteSelector;
  readonly #mask: number | undefined;
  readonly #random: Random | undefined;
  readonly #report: ImpairmentListener;

  constructor(
    selector: ByteSelector,
    options: { mask?: number; random?: Random },
    report: ImpairmentListener = () => undefined,
  ) {
    super();
    if (
      options.mask !== undefined &&
      !(Number.isInteger(options.mask) && options.mask > 0 && options.mask < 256)
    ) {
      throw new Error(`flip mask must be 1..255, got ${options.mask}`);
    }
    if (options.mask === undefined && !options.random) throw new Error("flip without a mask needs a seed");
    this.#selector = selector;
    this.#mask = options.mask;
    this.#random = options.random;
    this.#report = report;
  }

  protected receive(bytes: Uint8Array, position: number): void {
    let out: Uint8Array | undefined;
    for (let i = 0; i < bytes.length; i++) {
      if (!this.#selector.hits(position + i)) continue;
      out ??= bytes.slice();
      const mask = this.#mask ?? 1 << randomInt(this.#random!, 8);
      out[i] = out[i]! ^ mask;
      this.#report({
        impairment: "flip",
        position: position + i,
        bytes: Uint8Array.of(out[i]!),
        info: { mask, was: bytes[i] },
      });
    }
    this.emit(out ?? bytes);
  }
}
