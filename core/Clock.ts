/** Opaque handle of a scheduled callback. */
export type TimerHandle = { readonly __timer: unique symbol } | object;

/**
 * The one clock every part of a module reads. Production passes the system clock; tests pass a
 * fake clock; fleet runs pass an accelerated one. Nothing under firmware/ reads time otherwise.
 */
export interface Clock {
  /** Milliseconds since the UNIX epoch, as this module's world sees it. */
  now(): number;
  /** Calls `callback` once, `ms` milliseconds from now. */
  setTimer(callback: () => void, ms: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

/** Resolves after `ms` on `clock` (virtual or real); at once (next microtask) for `ms <= 0`. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0) void Promise.resolve().then(resolve);
    else clock.setTimer(resolve, ms);
  });
}
