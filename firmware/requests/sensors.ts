import { illuminationUnavailable } from "../errors.js";
import { SENSOR_KEYS, type TempSettings } from "../sensors/SensorSettings.js";
import { TEMP_FILE } from "../sensors/TemperatureSensor.js";
import { measuredVoltage } from "../power/VoltagePolicy.js";
import type { VariantName } from "../Variant.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";
import { intSetting, periodVariable, storeIfChanged, updated } from "./sensorArgs.js";
import type { JsonObject } from "../../core/json.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const NOT_LORA: readonly VariantName[] = ["cell", "cell-wifi", "wifi", "ntn"];

/** `card.temp` (every variant) and `card.illumination` (a light sensor on the I2C bus). */
export const sensorRequests: RequestTable = {
  "card.temp": cardTemp,
  "card.illumination": { handler: cardIllumination, variants: NOT_LORA },
};

function cardTemp({ name, args, module }: RequestContext): JsonObject {
  const minutes = intSetting(name, args, "minutes", 1);
  const status = periodVariable(name, args, "status");
  const stop = args.bool("stop");
  const sync = args.bool("sync");

  const sensor = module.sensors.temperature;
  const s: Mutable<TempSettings> = { ...sensor.settings };
  s.minutes = updated(s.minutes, minutes);
  if (status !== undefined) s.status = status ?? undefined;
  if (stop) s.minutes = s.status = undefined;
  if (storeIfChanged(module.notebox, SENSOR_KEYS.temp, s)) sensor.reconfigure();
  if (sync) module.notebox.requestSync(TEMP_FILE);

  const reply: JsonObject = { value: sensor.reading(), calibration: sensor.calibration };
  const environment = sensor.environment();
  if (Object.keys(environment).length > 0) {
    Object.assign(reply, environment);
    reply["usb"] = module.voltage.now().usb;
    reply["voltage"] = Math.round(measuredVoltage(module) * 10_000) / 10_000;
  }
  // `off`: the accelerometer (whose sensor gives `value`) was stopped by `card.motion.mode`.
  if (module.variant.accelerometer && module.sensors.accelerometer.settings.stopped) reply["off"] = true;
  return reply;
}

function cardIllumination({ module }: RequestContext): JsonObject {
  const lux = module.world.light();
  if (lux === undefined) throw illuminationUnavailable();
  return { value: lux };
}
