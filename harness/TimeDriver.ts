import type { Clock } from "../core/Clock.js";

/** A scenario expectation that did not come true in time. */
export class ScenarioTimeout extends Error {
  override readonly name = "ScenarioTimeout";
}

/**
 * Runs a scenario's world forward while the test waits for something. On virtual time it steps
 * the clock from timer to timer; on real time (a rig) it just waits. Either way a wait has a
 * deadline on the scenario's clock.
 */
export interface TimeDriver {
  readonly clock: Clock;
  readonly virtual: boolean;
  /**
   * Resolves like `promise`, running the world until it settles; rejects with ScenarioTimeout
   * when `timeoutMs` of scenario time pass first (`what` says what was awaited).
   */
  run<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T>;
  /** Lets `ms` of scenario time pass. */
  sleep(ms: number): Promise<void>;
}

/** Resolves after `ms` on `clock`. */
function clockSleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(resolve, Math.max(0, ms)));
}

/** Races `promise` against a deadline timer on `clock`; calls `done` once either way. */
export function withDeadline<T>(
  clock: Clock,
  promise: Promise<T>,
  timeoutMs: number,
  what: string,
  done: () => void = () => undefined,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = clock.setTimer(() => {
      if (settled) return;
      settled = true;
      done();
      reject(new ScenarioTimeout(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    promise.then(
      (value) => {
        if (settled) return;
        settled = true;
        clock.clearTimer(timer);
        done();
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        settled = true;
        clock.clearTimer(timer);
        done();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

/** The stepping a virtual clock offers (FakeClock). */
export interface SteppableClock extends Clock {
  /** Runs the earliest pending timer; false when none. */
  next(): Promise<boolean>;
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const realPause = () => new Promise<void>((resolve) => setTimeout(resolve, 1));

/** How long (real ms) the clock waits at most for real I/O before it moves on regardless. */
export const HOLD_LIMIT_MS = 10_000;

/**
 * Virtual time: while anything is awaited through `run`, the clock jumps from one pending timer
 * to the next, settling promises in between, so hours of module and host time pass in
 * milliseconds and every run is identical. Several waits may be in progress at once (a host
 * request and an expectation); one loop drives them all.
 */
export class VirtualTimeDriver implements TimeDriver {
  readonly clock: SteppableClock;
  readonly virtual = true;
  #waiting = 0;
  #pumping = false;
  #busy: (() => boolean) | undefined;

  constructor(clock: SteppableClock) {
    this.clock = clock;
  }

  /**
   * Something outside the clock (real I/O: a real HTTP client of the hub, a route delivery, a
   * proxied web request) that the clock waits for while `busy()` says so, so that a real answer
   * arrives at the virtual moment it was asked for (up to HOLD_LIMIT_MS of real time; then the
   * clock moves on, so that timeouts on the clock can fire).
   */
  holdWhile(busy: () => boolean): void {
    this.#busy = busy;
  }

  run<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
    this.#waiting++;
    const result = withDeadline(this.clock, promise, timeoutMs, what, () => this.#waiting--);
    void this.#pump();
    return result;
  }

  sleep(ms: number): Promise<void> {
    return this.run(clockSleep(this.clock, ms), ms + 1, `${ms} ms to pass`);
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      let heldSince: number | undefined;
      for (;;) {
        await yieldToEventLoop();
        if (this.#waiting === 0) return;
        if (this.#busy?.()) {
          heldSince ??= Date.now();
          if (Date.now() - heldSince < HOLD_LIMIT_MS) {
            await realPause();
            continue;
          }
        } else heldSince = undefined;
        // There is always a timer: every wait has its deadline on the clock.
        if (!(await this.clock.next())) return;
      }
    } finally {
      this.#pumping = false;
    }
  }
}

/** Real time, for rigs with real hardware: waits, with deadlines on the system clock. */
export class RealTimeDriver implements TimeDriver {
  readonly clock: Clock;
  readonly virtual = false;

  constructor(clock: Clock) {
    this.clock = clock;
  }

  run<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
    return withDeadline(this.clock, promise, timeoutMs, what);
  }

  sleep(ms: number): Promise<void> {
    return clockSleep(this.clock, ms);
  }
}
