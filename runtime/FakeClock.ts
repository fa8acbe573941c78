import { createClock } from "@sinonjs/fake-timers";
import type { Clock, TimerHandle } from "../core/Clock.js";

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

  setTimer(callback: () => void, ms: number): TimerHandle {
    return this.#clock.setTimeout(callback, ms) as unknown as TimerHandle;
  }

  clearTimer(handle: TimerHandle): void {
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

  /**
   * Jumps to the earliest pending timer and runs it (and any due with it), settling promises
   * after it. Returns false when no timer was pending. Used to run a scenario until a promise
   * settles without overshooting a deadline (the caller schedules the deadline as a timer).
   */
  async next(): Promise<boolean> {
    if (this.#clock.countTimers() === 0) return false;
    await this.#clock.nextAsync();
    return true;
  }

  /** How many timers are pending. */
  pendingTimers(): number {
    return this.#clock.countTimers();
  }
}
