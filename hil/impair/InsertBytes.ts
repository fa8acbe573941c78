import { concatBytes } from "../../core/bytes.js";
import { randomBytes, type Random } from "../../core/Random.js";
import { ByteStage } from "../stages/ByteStage.js";
import type { ByteSelector } from "./ByteSelector.js";
import type { ImpairmentListener } from "./ImpairmentEvent.js";

/**
 * Inserts bytes before each selected byte: given `bytes`, or `length` bytes of garbage from the
 * seed (noise on an idle line, a boot banner, a glitch).
 */
export class InsertBytes extends ByteStage {
  readonly #selector: ByteSelector;
  readonly #bytes: Uint8Array | undefined;
  readonly #length: number;
  readonly #random: Random | undefined;
  readonly #report: ImpairmentListener;

  constructor(
    selector: ByteSelector,
    options: { bytes?: Uint8Array; length?: number; random?: Random },
    report: ImpairmentListener = () => undefined,
  ) {
    super();
    if (options.bytes === undefined) {
      const length = options.length ?? 1;
      if (!Number.isSafeInteger(length) || length < 1)
        throw new Error(`insert length must be >= 1, got ${length}`);
      if (!options.random) throw new Error("inserting garbage needs a seed");
    } else if (options.bytes.length === 0) {
      throw new Error("insert bytes must not be empty");
    }
    this.#selector = selector;
    this.#bytes = options.bytes;
    this.#length = options.length ?? 1;
    this.#random = options.random;
    this.#report = report;
  }

  protected receive(bytes: Uint8Array, position: number): void {
    const parts: Uint8Array[] = [];
    let from = 0;
    for (let i = 0; i < bytes.length; i++) {
      if (!this.#selector.hits(position + i)) continue;
      const inserted = this.#bytes ?? randomBytes(this.#random!, this.#length);
      parts.push(bytes.subarray(from, i), inserted);
      from = i;
      this.#report({ impairment: "insert", position: position + i, bytes: inserted.slice() });
    }
    if (parts.length === 0) return this.emit(bytes);
    parts.push(bytes.subarray(from));
    this.emit(concatBytes(parts));
  }
}
