import { createClock } from "@sinonjs/fake-timers";
import type { Clock, TimerHandle } from "../firmware/Clock.js";

type SinonClock = ReturnType<typeof createClock>;

/**
 * Virtual time for tests and fleet runs: nothing happens until the test advances it. Built on
 * @sinonjs/fake-timers `createClock()` (not a global install, so Node's own timers stay real).
 */
export class FakeClock implements Clock {
  readonly #clock: SinonClock;

  /** `start`: epoch milliseconds the clock starts at (default 2026-01-01T00:00:00Z). */
  constructor(start = Date.UTC(2026, 0, 1)) {
    this.#clock = createClock(start);
  }

  now(): number {
    return this.#clock.now;
  }

  setTimeout(callback: () => void, ms: number): TimerHandle {
    return this.#clock.setTimeout(callback, ms) as unknown as TimerHandle;
  }

  clearTimeout(handle: TimerHandle): void {
    this.#clock.clearTimeout(handle as unknown as number);
  }

  /** Advances time by `ms`, running due timers and settling promises between them. */
  async advance(ms: number): Promise<void> {
    await this.#clock.tickAsync(ms);
  }

  /** Runs every timer that is due now. */
  async runDue(): Promise<void> {
    await this.#clock.tickAsync(0);
  }
}
