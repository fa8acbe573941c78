import type { ModuleCore } from "../ModuleCore.js";
import { measuredVoltage } from "../power/VoltagePolicy.js";
import { readSettings, SENSOR_KEYS, type TempSettings } from "./SensorSettings.js";
import { PeriodicLog } from "./PeriodicLog.js";
import { periodFor } from "./voltageVariableSetting.js";
import type { JsonObject } from "../../core/json.js";

export const TEMP_FILE = "_temp.qo";
/** The on-board sensor's resolution, degrees Celsius (readings like 27.625). */
const RESOLUTION = 1 / 16;

/**
 * The on-board temperature sensor (`card.temp`) and its periodic `_temp.qo` notes. The world
 * gives the temperature at the module; the reading is quantized to the sensor's 1/16 degree. An
 * environmental sensor on the I2C bus (a BME280 in the world) adds `temperature`, `humidity` and
 * `pressure`.
 */
export class TemperatureSensor {
  readonly #module: ModuleCore;
  readonly #logging: PeriodicLog;

  constructor(module: ModuleCore) {
    this.#module = module;
    this.#logging = new PeriodicLog(
      module,
      "temperature logging",
      () => this.minutes,
      () => this.#log(),
    );
  }

  get settings(): TempSettings {
    return readSettings<TempSettings>(this.#module, SENSOR_KEYS.temp);
  }

  /** Minutes between `_temp.qo` notes now (a `status` voltage-variable value wins), or undefined. */
  get minutes(): number | undefined {
    const s = this.settings;
    const variable = periodFor(this.#module, s.status);
    const minutes = variable ?? s.minutes;
    return minutes !== undefined && minutes > 0 ? minutes : undefined;
  }

  /** The per-device calibration offset the sensor reports, degrees (derived from the DeviceUID). */
  get calibration(): number {
    const digits = this.#module.deviceUid.replace(/\D/g, "");
    const n = Number(digits.slice(-2) || "0");
    return -1 - (n % 6) * 0.5;
  }

  /** The calibrated reading, degrees Celsius. */
  reading(): number {
    return Math.round(this.#module.world.temperature() / RESOLUTION) * RESOLUTION;
  }

  /** Readings of an environmental sensor on the I2C bus, if there is one. */
  environment(): JsonObject {
    const env = this.#module.world.environment();
    if (!env) return {};
    return { temperature: env.temperature, humidity: env.humidity, pressure: env.pressure };
  }

  start(): void {
    this.reconfigure();
  }

  reconfigure(): void {
    this.#logging.reconfigure();
  }

  dispose(): void {
    this.#logging.dispose();
  }

  #log(): void {
    const module = this.#module;
    const body: JsonObject = {
      value: this.reading(),
      voltage: Math.round(measuredVoltage(module) * 10_000) / 10_000,
      ...this.environment(),
    };
    module.notebox.appendToQueue(TEMP_FILE, { body, time: module.noteTime() });
  }
}
