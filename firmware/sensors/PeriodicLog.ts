import { inBackground } from "../inBackground.js";
import type { ModuleCore } from "../ModuleCore.js";
import { SensorTimer } from "./SensorTimer.js";

/**
 * A reading logged every `minutes()` of module time, in the background, until disposed: the
 * temperature sensor's and the Mojo's `_log.qo` notes. The period is read again after each
 * reading (a setting or a voltage variable may have changed it); none while it is undefined.
 */
export class PeriodicLog {
  readonly #timer: SensorTimer;
  #disposed = false;

  constructor(
    private readonly module: ModuleCore,
    /** What the module's log calls a failure of it ("temperature logging"). */
    private readonly what: string,
    private readonly minutes: () => number | undefined,
    private readonly log: () => void,
  ) {
    this.#timer = new SensorTimer(module.clock);
  }

  /** Schedules the next reading from now, with the period as it is now. */
  reconfigure(): void {
    this.#timer.clear();
    const minutes = this.minutes();
    if (minutes === undefined || this.#disposed) return;
    this.#timer.set(minutes * 60_000, () =>
      inBackground(
        this.module,
        this.what,
        () => {
          this.log();
          this.reconfigure();
        },
        () => this.#disposed,
      ),
    );
  }

  dispose(): void {
    this.#disposed = true;
    this.#timer.clear();
  }
}
