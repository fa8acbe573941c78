import type { AttnPin } from "../../firmware/attn/AttnPin.js";
import type { GpioOutput } from "./GpioChip.js";

/** The module's ATTN output on a GPIO line. */
export class GpioAttnPin implements AttnPin {
  readonly #line: GpioOutput;

  constructor(line: GpioOutput) {
    this.#line = line;
  }

  write(high: boolean): void {
    this.#line.write(high);
  }
}
