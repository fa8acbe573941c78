import type { Clock } from "../../core/Clock.js";
import type { GpioOutput } from "./GpioChip.js";

/**
 * The host MCU's RESET input, driven by the harness (active LOW, as on nearly every MCU): idle it
 * released (HIGH), `pulse` resets the host, `hold` keeps it in reset.
 */
export class HostResetLine {
  readonly #line: GpioOutput;
  readonly #clock: Clock;
  readonly #activeLow: boolean;

  constructor(line: GpioOutput, clock: Clock, options: { activeLow?: boolean } = {}) {
    this.#line = line;
    this.#clock = clock;
    this.#activeLow = options.activeLow ?? true;
  }

  /** True while the host is held in reset. */
  get asserted(): boolean {
    return this.#line.level === !this.#activeLow;
  }

  hold(): void {
    this.#line.write(!this.#activeLow);
  }

  release(): void {
    this.#line.write(this.#activeLow);
  }

  /** Asserts reset for `ms` (on the harness clock), then releases it. */
  pulse(ms = 10): Promise<void> {
    this.hold();
    return new Promise((resolve) => {
      this.#clock.setTimer(() => {
        this.release();
        resolve();
      }, ms);
    });
  }
}
