import type { Clock } from "../../core/Clock.js";

/** Resolves after `ms` on `clock` (virtual or real). */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (ms <= 0) queueMicrotask(resolve);
    else clock.setTimer(resolve, ms);
  });
}
