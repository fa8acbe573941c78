import type { ModuleCore } from "../ModuleCore.js";

/** Epoch seconds of module clock time `at`, or undefined while the module does not know the time. */
export function epochAt(module: ModuleCore, at: number): number | undefined {
  const now = module.time();
  if (now === undefined) return undefined;
  return Math.max(0, now - Math.round((module.clock.now() - at) / 1000));
}

/** Like epochAt, 0 while the time is unknown (for note bodies, which leave zeros out). */
export function epochOrZero(module: ModuleCore, at: number): number {
  return epochAt(module, at) ?? 0;
}
