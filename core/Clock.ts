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
