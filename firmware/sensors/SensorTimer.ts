import type { Clock, TimerHandle } from "../../core/Clock.js";

/** Longest delay a platform timer takes (Node and fake timers treat longer ones as 1 ms). */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * One pending callback on the module clock, for the sensors' schedules: setting it again
 * replaces the pending one, and delays longer than a platform timer allows (a period of months)
 * are reached in steps instead of firing at once.
 */
export class SensorTimer {
  readonly #clock: Clock;
  #handle: TimerHandle | undefined;

  constructor(clock: Clock) {
    this.#clock = clock;
  }

  get pending(): boolean {
    return this.#handle !== undefined;
  }

  set(ms: number, callback: () => void): void {
    this.clear();
    const due = this.#clock.now() + Math.max(0, Number.isNaN(ms) ? 0 : ms);
    const arm = () => {
      const left = Math.max(0, due - this.#clock.now());
      this.#handle = this.#clock.setTimer(
        () => {
          this.#handle = undefined;
          if (left > MAX_TIMER_MS) arm();
          else callback();
        },
        Math.min(left, MAX_TIMER_MS),
      );
    };
    arm();
  }

  clear(): void {
    if (this.#handle) this.#clock.clearTimer(this.#handle);
    this.#handle = undefined;
  }
}
