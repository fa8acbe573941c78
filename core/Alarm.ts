import type { Clock, TimerHandle } from "./Clock.js";

/**
 * One wake-up at an absolute time of a clock: `at` moves it (a time already set costs nothing),
 * `Infinity` or `cancel` clears it. For services that sleep until their earliest due item.
 */
export class Alarm {
  readonly #clock: Clock;
  readonly #fire: () => void;
  #timer: TimerHandle | undefined;
  #at = Infinity;

  constructor(clock: Clock, fire: () => void) {
    this.#clock = clock;
    this.#fire = fire;
  }

  /** Wakes at `at` (epoch ms on the clock; `now` is the clock's time now), or never for Infinity. */
  at(at: number, now: number): void {
    if (at === this.#at) return;
    this.cancel();
    this.#at = at;
    if (at === Infinity) return;
    this.#timer = this.#clock.setTimer(
      () => {
        this.#timer = undefined;
        this.#at = Infinity;
        this.#fire();
      },
      Math.max(0, at - now),
    );
  }

  cancel(): void {
    if (this.#timer) this.#clock.clearTimer(this.#timer);
    this.#timer = undefined;
    this.#at = Infinity;
  }
}
