import { ByteStage } from "../stages/ByteStage.js";
import type { ByteSelector } from "./ByteSelector.js";
import type { ImpairmentListener } from "./ImpairmentEvent.js";

/** Loses the selected bytes, as line noise or an overrun would. */
export class DropBytes extends ByteStage {
  readonly #selector: ByteSelector;
  readonly #report: ImpairmentListener;

  constructor(selector: ByteSelector, report: ImpairmentListener = () => undefined) {
    super();
    this.#selector = selector;
    this.#report = report;
  }

  protected receive(bytes: Uint8Array, position: number): void {
    const kept: number[] = [];
    let runStart = -1;
    const dropped: number[] = [];
    const flush = () => {
      if (dropped.length === 0) return;
      this.#report({ impairment: "drop", position: runStart, bytes: Uint8Array.from(dropped) });
      dropped.length = 0;
    };
    for (let i = 0; i < bytes.length; i++) {
      if (this.#selector.hits(position + i)) {
        if (dropped.length === 0) runStart = position + i;
        dropped.push(bytes[i]!);
      } else {
        flush();
        kept.push(bytes[i]!);
      }
    }
    flush();
    this.emit(kept.length === bytes.length ? bytes : Uint8Array.from(kept));
  }
}
