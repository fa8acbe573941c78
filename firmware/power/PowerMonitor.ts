import type { JsonObject } from "../../core/json.js";
import type { ModuleCore } from "../ModuleCore.js";
import { PeriodicLog } from "../sensors/PeriodicLog.js";
import type { TemperatureSensor } from "../sensors/TemperatureSensor.js";
import { measuredVoltage } from "./VoltagePolicy.js";

/** Notebox config key of the `card.power` settings. */
export const POWER_KEY = "card.power";
/** Minutes between `_log.qo` power notes until `minutes` says otherwise (card.power.req `minutes` default). */
export const DEFAULT_POWER_LOG_MINUTES = 720;
export const POWER_LOG_FILE = "_log.qo";

export interface PowerSettings {
  /** Minutes between `_log.qo` notes (absent: 720). */
  readonly minutes?: number;
  /** The energy model's total (mAh) at the last `reset`: `milliamp_hours` counts from there. */
  readonly baseMah?: number;
}

/**
 * A Mojo power monitor between the supply and the module (`card.power`, in the world as
 * `mojo()`): its reading is the on-board temperature, the supply's voltage and the charge used
 * since the counters were reset, which the energy model gives (sessions, radio time, idle hours).
 * With a Mojo attached the module logs a reading to `_log.qo` every `minutes` (default 720).
 */
export class PowerMonitor {
  readonly #logging: PeriodicLog;

  constructor(
    private readonly module: ModuleCore,
    private readonly temperature: TemperatureSensor,
  ) {
    this.#logging = new PeriodicLog(
      module,
      "power logging",
      () => (this.minutes > 0 ? this.minutes : undefined),
      () => this.#log(),
    );
  }

  get settings(): PowerSettings {
    return this.module.notebox.config<PowerSettings>(POWER_KEY) ?? {};
  }

  get minutes(): number {
    return this.settings.minutes ?? DEFAULT_POWER_LOG_MINUTES;
  }

  /** A Mojo is attached. */
  get attached(): boolean {
    return this.module.world.mojo();
  }

  /** Charge used since the last reset, mAh. */
  milliampHours(): number {
    return Math.max(0, this.module.energy.report().mah - (this.settings.baseMah ?? 0));
  }

  /** What `card.power` answers and `_log.qo` notes carry. */
  reading(): JsonObject {
    return {
      temperature: this.temperature.reading(),
      voltage: Math.round(measuredVoltage(this.module) * 10_000) / 10_000,
      milliamp_hours: Math.round(this.milliampHours() * 1_000_000) / 1_000_000,
    };
  }

  /** Sets the counters back to 0 (`reset:true`). */
  reset(): PowerSettings {
    return { ...this.settings, baseMah: this.module.energy.report().mah };
  }

  start(): void {
    this.reconfigure();
  }

  /** Plans the next `_log.qo` note, `minutes` from now (after a change of `minutes`, or a note). */
  reconfigure(): void {
    this.#logging.reconfigure();
  }

  dispose(): void {
    this.#logging.dispose();
  }

  #log(): void {
    if (!this.attached) return;
    const module = this.module;
    module.notebox.appendToQueue(POWER_LOG_FILE, { body: this.reading(), time: module.noteTime() });
  }
}
