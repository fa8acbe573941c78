import {
  argumentNotOneOf,
  argumentNotSupportedOnVariant,
  argumentOutOfRange,
  argumentRequired,
  argumentsIncompatible,
  auxUsageNeedsGpio,
  auxUsageTooLong,
  ledColorNotInMode,
  ledNeedsAuxMode,
} from "../errors.js";
import {
  AUX_MODES,
  AUX_USAGES,
  DEFAULT_BUTTON_FILE,
  LED_COLORS,
  ledColorsFor,
  type AuxUsage,
  type LedColor,
} from "../sensors/AuxController.js";
import {
  SENSOR_KEYS,
  type AuxSerialSettings,
  type AuxSettings,
  type CarrierSettings,
} from "../sensors/SensorSettings.js";
import type { VariantName } from "../Variant.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";
import { intSetting, queueFile, storeIfChanged, updated } from "./sensorArgs.js";
import type { JsonObject } from "../../core/json.js";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const NOT_LORA: readonly VariantName[] = ["cell", "cell-wifi", "wifi", "ntn"];
/** What the LoRa module's AUX pins can do (the schema's per-SKU notes). */
const LORA_AUX_MODES = new Set(["gpio", "neo-monitor", "off", "-"]);
const AUX_RATES = [-1, 300, 600, 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, 460800, 921600];
const NEO_COUNTS = [-1, 1, 2, 5];
const AUX_SERIAL_MODE = /^(req|gps|notify(,(accel|signals|env|dfu))*)$/;
const MONITOR_COLORS = ["green", "red", "yellow"];
const CARRIER_MODES = ["charging", "-", "off"];

/** `card.aux`, `card.aux.serial`, `card.led`, `card.monitor`, `card.carrier`: the AUX pins. */
export const auxRequests: RequestTable = {
  "card.aux": cardAux,
  "card.aux.serial": { handler: cardAuxSerial, variants: NOT_LORA },
  "card.led": cardLed,
  "card.monitor": { handler: cardMonitor, variants: NOT_LORA },
  "card.carrier": { handler: cardCarrier, variants: NOT_LORA },
};

function cardAux({ name, args, module }: RequestContext): JsonObject {
  const mode = args.string("mode");
  const usage = args.stringArray("usage");
  const seconds = intSetting(name, args, "seconds", 0);
  const max = intSetting(name, args, "max", 0);
  const ms = intSetting(name, args, "ms", 0);
  const start = args.bool("start");
  const sync = args.optionalBool("sync");
  const file = queueFile(name, args);
  const connected = args.optionalBool("connected");
  const rate = args.int("rate");
  const count = args.int("count");
  const offset = intSetting(name, args, "offset", 1);
  const sensitivity = args.int("sensitivity");
  const limit = args.optionalBool("limit");
  const gps = args.optionalBool("gps");
  const radio = module.variant.radio;

  if (mode !== undefined && mode !== "-" && !(AUX_MODES as readonly string[]).includes(mode))
    throw argumentNotOneOf(name, "mode", mode, [...AUX_MODES, "-"]);
  if (mode !== undefined && module.variant.lora && !LORA_AUX_MODES.has(mode))
    throw argumentNotSupportedOnVariant(`card.aux mode ${mode}`, radio);
  if (rate !== undefined && !AUX_RATES.includes(rate))
    throw argumentNotOneOf(name, "rate", String(rate), AUX_RATES.map(String));
  if (count !== undefined && !NEO_COUNTS.includes(count))
    throw argumentNotOneOf(name, "count", String(count), NEO_COUNTS.map(String));
  if (sensitivity !== undefined && (sensitivity < -1 || sensitivity > 100))
    throw argumentOutOfRange(name, "sensitivity", "1 to 100, or -1 for the default", sensitivity);
  const aux = module.sensors.aux;
  const current = aux.settings;
  const nextMode = mode === "-" ? undefined : (mode ?? current.mode);
  if (usage !== undefined) {
    if (nextMode !== "gpio") throw auxUsageNeedsGpio();
    if (usage.length > 4) throw auxUsageTooLong(usage.length);
    for (const u of usage) {
      if (!(AUX_USAGES as readonly string[]).includes(u))
        throw argumentNotOneOf(name, "usage", u, AUX_USAGES);
      if (module.variant.lora && u.startsWith("count"))
        throw argumentNotSupportedOnVariant(`card.aux usage ${u}`, radio);
    }
  }
  if (module.variant.lora) {
    for (const [arg, given] of [
      ["sync", sync],
      ["file", file],
      ["connected", connected],
      ["ms", ms],
    ] as const)
      if (given !== undefined) throw argumentNotSupportedOnVariant(`card.aux ${arg}`, radio);
  }

  const s: Mutable<AuxSettings> = { ...current };
  s.mode = nextMode === "off" ? undefined : nextMode;
  if (usage !== undefined) {
    const before = aux.usage();
    s.usage = [0, 1, 2, 3].map((i) => {
      const u = usage[i] as AuxUsage | undefined;
      return u === undefined || u === "" ? before[i]! : u;
    });
  }
  s.seconds = updated(s.seconds, seconds === 0 ? null : seconds);
  s.max = updated(s.max, max === 0 ? null : max);
  s.ms = updated(s.ms, ms === 0 ? null : ms);
  if (sync !== undefined) s.sync = sync || undefined;
  if (file !== undefined) s.file = file === null || file === DEFAULT_BUTTON_FILE ? undefined : file;
  if (connected !== undefined) s.connected = connected || undefined;
  if (rate !== undefined) s.rate = rate === -1 || rate === 115200 ? undefined : rate;
  if (count !== undefined) s.count = count === -1 ? undefined : count;
  s.offset = updated(s.offset, offset);
  if (sensitivity !== undefined)
    s.sensitivity = sensitivity === -1 || sensitivity === 0 ? undefined : sensitivity;
  if (limit !== undefined) s.limit = limit || undefined;
  if (gps !== undefined) s.gps = gps || undefined;
  if (storeIfChanged(module.notebox, SENSOR_KEYS.aux, s)) aux.apply();
  if (start) aux.restartCounting();

  const reply = aux.report();
  if (module.voltage.now().usb) reply["power"] = true;
  return reply;
}

function cardAuxSerial({ name, args, module }: RequestContext): JsonObject {
  const mode = args.string("mode");
  const rate = intSetting(name, args, "rate", 1);
  const duration = intSetting(name, args, "duration", 0);
  const minutes = intSetting(name, args, "minutes", 0);
  const max = intSetting(name, args, "max", 0);
  const ms = intSetting(name, args, "ms", 0);
  const limit = args.optionalBool("limit");
  if (mode !== undefined && mode !== "" && mode !== "-" && !AUX_SERIAL_MODE.test(mode))
    throw argumentNotOneOf(name, "mode", mode, [
      "req",
      "gps",
      "notify",
      "notify,accel",
      "notify,signals",
      "notify,env",
      "notify,dfu",
    ]);

  const current = module.notebox.config<AuxSerialSettings>(SENSOR_KEYS.auxSerial) ?? {};
  const s: Mutable<AuxSerialSettings> = { ...current };
  if (mode === "-" || mode === "req") s.mode = undefined;
  else if (mode === "notify") s.mode = current.mode?.startsWith("notify") ? current.mode : "notify";
  else if (mode) s.mode = mode;
  s.rate = updated(s.rate, rate);
  s.duration = updated(s.duration, duration);
  s.minutes = updated(s.minutes, minutes);
  s.max = updated(s.max, max);
  s.ms = updated(s.ms, ms);
  if (limit !== undefined) s.limit = limit || undefined;
  storeIfChanged(module.notebox, SENSOR_KEYS.auxSerial, s);

  const now = module.notebox.config<AuxSerialSettings>(SENSOR_KEYS.auxSerial) ?? {};
  const serialMode = now.mode ?? "req";
  return {
    mode: serialMode,
    rate: now.rate ?? (serialMode === "gps" ? 9600 : 115200),
    max: now.max,
    ms: now.ms,
  };
}

function cardLed({ name, args, module }: RequestContext): JsonObject {
  const color = args.string("mode");
  const on = args.bool("on");
  const off = args.bool("off");
  if (on && off) throw argumentsIncompatible(name, "on", "off");
  if (color !== undefined && !(LED_COLORS as readonly string[]).includes(color))
    throw argumentNotOneOf(name, "mode", color, LED_COLORS);
  const aux = module.sensors.aux;
  const auxMode = aux.mode;
  if (module.variant.lora && auxMode !== "neo" && auxMode !== "neo-monitor")
    throw argumentNotSupportedOnVariant("card.led without NeoPixels", module.variant.radio);
  const colors = ledColorsFor(auxMode === "neo-monitor" ? "neo" : auxMode);
  if (!colors) throw ledNeedsAuxMode(auxMode);
  if (color === undefined) throw argumentRequired(name, "mode (the LED color)");
  if (!on && !off) throw argumentRequired(name, "on:true or off:true");
  if (!colors.includes(color as LedColor)) throw ledColorNotInMode(color, auxMode, colors);
  aux.led(color as LedColor, on);
  return {};
}

function cardMonitor({ name, args, module }: RequestContext): JsonObject {
  const color = args.string("mode");
  const count = args.int("count");
  const usb = args.bool("usb");
  if (color !== undefined && !MONITOR_COLORS.includes(color))
    throw argumentNotOneOf(name, "mode", color, MONITOR_COLORS);
  if (count !== undefined && count < -1)
    throw argumentOutOfRange(name, "count", "0 or more pulses, or -1", count);
  // Kept even outside a monitor mode: it shows once the pins are in one.
  module.sensors.aux.setMonitor(color, count === undefined || count === -1 ? 0 : count, usb);
  return {};
}

function cardCarrier({ name, args, module }: RequestContext): JsonObject {
  const mode = args.string("mode");
  if (mode !== undefined && !CARRIER_MODES.includes(mode))
    throw argumentNotOneOf(name, "mode", mode, CARRIER_MODES);
  const current = module.notebox.config<CarrierSettings>(SENSOR_KEYS.carrier) ?? {};
  const s: Mutable<CarrierSettings> = { ...current };
  if (mode === "charging") s.charging = true;
  else if (mode !== undefined) s.charging = undefined;
  storeIfChanged(module.notebox, SENSOR_KEYS.carrier, s);
  const charging = s.charging === true;
  return { mode: charging ? "charging" : "off", charging: module.sensors.aux.chargingReported() };
}
