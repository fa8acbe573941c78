import type { Clock, TimerHandle } from "../../core/Clock.js";

/**
 * Real time at a multiple: `speed` milliseconds of this clock pass in each wall millisecond, from
 * `start` on. What a fleet's modules run on when they sync with a hub elsewhere (`--hub URL`),
 * whose own clock is the wall's: sessions take real time, the schedule between them is shortened.
 */
export class AcceleratedClock implements Clock {
  readonly #wallStart = performance.now();

  constructor(
    readonly speed: number,
    readonly start = Date.now(),
  ) {
    if (!(speed > 0)) throw new Error(`a clock's speed is above 0, got ${speed}`);
  }

  now(): number {
    return Math.floor(this.start + (performance.now() - this.#wallStart) * this.speed);
  }

  /** Wall milliseconds since the clock started. */
  wallElapsed(): number {
    return performance.now() - this.#wallStart;
  }

  setTimer(callback: () => void, ms: number): TimerHandle {
    return setTimeout(callback, Math.max(0, ms / this.speed));
  }

  clearTimer(handle: TimerHandle): void {
    clearTimeout(handle as NodeJS.Timeout);
  }
}
