import { ByteStage } from "../stages/ByteStage.js";
import type { ByteSelector } from "./ByteSelector.js";
import type { ImpairmentListener } from "./ImpairmentEvent.js";

/** Sends the selected bytes twice in a row (a glitching receiver double-sampling a byte). */
export class DuplicateBytes extends ByteStage {
  readonly #selector: ByteSelector;
  readonly #report: ImpairmentListener;

  constructor(selector: ByteSelector, report: ImpairmentListener = () => undefined) {
    super();
    this.#selector = selector;
    this.#report = report;
  }

  protected receive(bytes: Uint8Array, position: number): void {
    const out: number[] = [];
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      out.push(b);
      if (this.#selector.hits(position + i)) {
        out.push(b);
        this.#report({ impairment: "duplicate", position: position + i, bytes: Uint8Array.of(b) });
      }
    }
    this.emit(out.length === bytes.length ? bytes : Uint8Array.from(out));
  }
}
