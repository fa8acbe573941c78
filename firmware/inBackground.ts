import type { ModuleCore } from "./ModuleCore.js";

/**
 * Runs `task` in the module's exclusive queue as work nobody waits on (a timer's note, a sensor's
 * sample, a pin edge): skipped, before and at its turn, once `gone()` says its owner was disposed
 * or the module closed; a failure is logged as `<what> failed` with its stack.
 */
export function inBackground(
  module: Pick<ModuleCore, "exclusive" | "log">,
  what: string,
  task: () => void,
  gone: () => boolean = () => false,
): void {
  if (gone()) return;
  module
    .exclusive(() => {
      if (!gone()) task();
    })
    .catch((error: unknown) =>
      module.log.error(`${what} failed`, { error: String((error as Error)?.stack ?? error) }),
    );
}
