import type { Clock, TimerHandle } from "../core/Clock.js";

/** Wall-clock time and real timers (production). */
export class SystemClock implements Clock {
  now(): number {
    return Date.now();
  }

  setTimer(callback: () => void, ms: number): TimerHandle {
    const handle = setTimeout(callback, ms);
    handle.unref?.();
    return handle;
  }

  clearTimer(handle: TimerHandle): void {
    clearTimeout(handle as NodeJS.Timeout);
  }
}
