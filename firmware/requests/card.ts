import { encodeBase64 } from "../../core/base64.js";
import {
  CARD_KEYS,
  DEFAULT_I2C_ADDRESS,
  type ContactSettings,
  type IoSettings,
  type TimeZone,
} from "../config/CardSettings.js";
import { ENV_KEYS } from "../env/Environment.js";
import { effectivePeriods, LORA_DETAILS_KEY } from "../config/HubConfig.js";
import {
  apiVersionUnsupported,
  apiVersionInvalid,
  calibrationInvalid,
  emailInvalid,
  i2cAddressInvalid,
  ioModeInvalid,
  randomCountInvalid,
  randomModeInvalid,
  randomPayloadCountInvalid,
  sideloadTimeInvalid,
  voltageHoursInvalid,
  voltageLimitsInvalid,
  voltageOffsetInvalid,
  argumentRequired,
  argumentsIncompatible,
  notSupportedOnExtendedPower,
  restoreNeedsDelete,
  voltageModeInvalid,
} from "../errors.js";
import { storeRecord } from "../config/compactRecord.js";
import { WIFI_KEY } from "../radio/WifiStation.js";
import type { ModuleContext } from "../ModuleContext.js";
import {
  calibrationOffset,
  currentThresholds,
  DEFAULT_CALIBRATION,
  measuredVoltage,
  VOLTAGE_CONFIG_KEY,
  presetThresholds,
  voltageSettings,
  type VoltageSettings,
} from "../power/VoltagePolicy.js";
import { VoltageVariable } from "../power/VoltageVariable.js";
import { randomBytes, randomInt } from "../../core/Random.js";
import { NOT_LORA } from "../Variant.js";
import { syncState } from "../sync/SyncState.js";
import { firmwareBody, INSTALLED_FIRMWARE_KEY, installedRelease, releaseName } from "../FirmwareVersion.js";
import type { Mutable } from "../../core/types.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";
import type { JsonObject } from "../../core/json.js";

/** Variants without LoRa (requests the LoRa module does not have). */
const HOUR_MS = 3_600_000;
/** Time sideloads before this (2017-01-01) are not a plausible clock. */
const EARLIEST_TIME = 1_483_228_800;
const MAX_RANDOM_PAYLOAD = 4096;
const IO_MODES = [
  "-1",
  "-usb",
  "usb",
  "+usb",
  "+busy",
  "-busy",
  "i2c-master-disable",
  "i2c-master-enable",
  "+fallback",
  "-fallback",
];

/**
 * `card.*` requests that need no radio, sync, sensors or binary buffer. The others answer a
 * clear `{not-supported}` error from unbuilt.ts until their capability exists.
 */
export const cardRequests: RequestTable = {
  "card.version": cardVersion,
  // card.status.rsp requires `usb`: false is sent too.
  "card.status": { handler: cardStatus, keep: ["usb"] },
  "card.time": cardTime,
  "card.restart": cardRestart,
  "card.restore": cardRestore,
  "card.voltage": cardVoltage,
  "card.random": { handler: cardRandom, variants: NOT_LORA },
  "card.contact": { handler: cardContact, variants: NOT_LORA },
  "card.io": cardIo,
};

function cardVersion({ args, module }: RequestContext): JsonObject {
  // Hosts pin an API major version with `api`, as a number or a string ("1").
  const raw = args.raw["api"];
  const api = typeof raw === "string" ? args.string("api") : args.number("api");
  if (api !== undefined) {
    const major = Number(api);
    if (!Number.isInteger(major) || major < 1) throw apiVersionInvalid();
    const running = installedRelease(module.notebox).major;
    if (major > running) throw apiVersionUnsupported(major, running);
  }
  const v = module.variant;
  const release = installedRelease(module.notebox);
  return {
    body: firmwareBody(v, release),
    version: releaseName(release),
    name: "Blues Wireless Notecard",
    device: module.deviceUid,
    sku: v.sku,
    ordering_code: v.orderingCode,
    board: v.board,
    cell: v.cell,
    gps: v.gps,
    wifi: v.wifi,
  };
}

function cardStatus({ module }: RequestContext): JsonObject {
  const { used, capacity } = module.notebox.usage();
  const now = module.time();
  const periods = effectivePeriods(module);
  const session = module.sync.status();
  return {
    status: "{normal}",
    connected: session.connected,
    // Since firmware 7.5.1: the module has completed a session with its hub at least once.
    sync: syncState(module.notebox).ever,
    usb: module.voltage.now().usb,
    storage: capacity > 0 ? Math.min(100, Math.round((used * 100) / capacity)) : 0,
    time: now === undefined ? undefined : Math.round(now - (module.clock.now() - module.bootedAt) / 1000),
    inbound: periods.inbound,
    outbound: periods.outbound,
  };
}

/** `{"zone":"UTC,Unknown"}` until the time is known; a host may sideload `time` while it is not. */
function cardTime({ args, module }: RequestContext): JsonObject {
  const sideload = args.int("time");
  if (sideload !== undefined && module.time() === undefined) {
    if (sideload < EARLIEST_TIME) throw sideloadTimeInvalid(sideload);
    module.setTime(sideload);
  }
  const time = module.time();
  const zone = module.notebox.config<TimeZone>(CARD_KEYS.timeZone);
  if (time === undefined) return { zone: "UTC,Unknown" };
  return {
    time,
    zone: zone?.zone ?? "UTC,Unknown",
    minutes: zone?.minutes,
    area: zone?.area,
    country: zone?.country,
    lat: zone?.lat,
    lon: zone?.lon,
  };
}

function cardRestart({ module }: RequestContext): JsonObject {
  module.restartAfterReply();
  return {};
}

/**
 * Factory reset, then restart. No arguments: the file system only (notefiles, trackers,
 * templates, hub-delivered variables), to be re-synced. `delete`: every setting too, except the
 * identity, the alternate I2C address, WiFi credentials and LoRaWAN details. `connected`: the hub is also told
 * to deprovision the module at its next session.
 */
function cardRestore({ args, module }: RequestContext): JsonObject {
  const erase = args.bool("delete");
  const connected = args.bool("connected");
  if (module.variant.lora && !erase) throw restoreNeedsDelete(module.variant.radio);
  const box = module.notebox;
  if (erase) {
    const identity = box.config(CARD_KEYS.identity);
    const key = box.config(CARD_KEYS.key);
    const lora = box.config(LORA_DETAILS_KEY);
    const i2c = box.config<IoSettings>(CARD_KEYS.io)?.i2c;
    const installed = box.config(INSTALLED_FIRMWARE_KEY);
    const wifi = box.config(WIFI_KEY); // "not WiFi creds" (card.restore's description)
    box.eraseAll();
    box.setConfig(WIFI_KEY, wifi);
    box.setConfig(INSTALLED_FIRMWARE_KEY, installed);
    box.setConfig(CARD_KEYS.identity, identity);
    box.setConfig(CARD_KEYS.key, key);
    box.setConfig(LORA_DETAILS_KEY, lora);
    if (i2c !== undefined) box.setConfig(CARD_KEYS.io, { i2c });
  } else {
    for (const file of [...box.files()]) box.deleteFile(file.name);
    for (const tracker of [...box.trackers()]) box.deleteTracker(tracker);
    box.setConfig(ENV_KEYS.hub, undefined);
  }
  if (connected) box.setConfig(CARD_KEYS.deprovision, true);
  module.restartAfterReply();
  return {};
}

function cardVoltage({ name, args, module }: RequestContext): JsonObject {
  const mode = args.string("mode");
  const variable = args.string("name");
  const hours = args.int("hours") ?? 720;
  const offsetHours = args.int("offset") ?? 0;
  const vmin = args.number("vmin") ?? 2.3;
  const vmax = args.number("vmax") ?? 5.4;
  const now = args.bool("now");
  const on = args.optionalBool("on");
  const off = args.optionalBool("off");
  const usb = args.optionalBool("usb");
  const alert = args.optionalBool("alert");
  const sync = args.optionalBool("sync");
  const set = args.bool("set");
  const calibration = args.number("calibration");

  if (hours < 1 || hours > 720) throw voltageHoursInvalid(hours);
  if (offsetHours < 0 || offsetHours > 720) throw voltageOffsetInvalid(offsetHours);
  if (vmin >= vmax) throw voltageLimitsInvalid(vmin, vmax);
  if (on && off) throw argumentsIncompatible(name, "on", "off");
  if (set && calibration === undefined) throw argumentRequired(name, "calibration");
  if (calibration !== undefined && (calibration < -1 || calibration > 2))
    throw calibrationInvalid(calibration);

  const s: Mutable<VoltageSettings> = { ...voltageSettings(module) };
  if (mode !== undefined && mode !== "?") {
    if (module.variant.extendedPower) throw notSupportedOnExtendedPower("setting voltage thresholds");
    if (presetThresholds(mode) !== undefined) s.mode = mode === "default" ? undefined : mode;
    else {
      const parsed = VoltageVariable.parse(mode, "volts");
      if (!(parsed instanceof VoltageVariable)) throw voltageModeInvalid(mode, parsed.problem);
      s.mode = parsed.toString();
    }
  }
  if (variable !== undefined) s.name = variable === "" || variable === "-" ? undefined : variable;
  if (on) {
    s.on = true;
    s.onAt ??= module.clock.now();
  }
  if (off) s.on = s.onAt = undefined;
  if (usb !== undefined) s.usb = usb || undefined;
  if (alert !== undefined) s.alert = alert || undefined;
  if (sync !== undefined) s.sync = sync || undefined;
  // A calibration is only taken together with `set`.
  if (set) s.calibration = calibration === DEFAULT_CALIBRATION ? undefined : calibration;
  storeRecord(module.notebox, VOLTAGE_CONFIG_KEY, s);

  if (mode === "?") return { mode: currentThresholds(module).toString() };
  return voltageReport(module, s, { hours, offsetHours, vmin, vmax, now });
}

interface TrendWindow {
  readonly hours: number;
  readonly offsetHours: number;
  readonly vmin: number;
  readonly vmax: number;
  readonly now: boolean;
}

function voltageReport(module: ModuleContext, s: VoltageSettings, w: TrendWindow): JsonObject {
  const supply = module.voltage.now();
  const value = measuredVoltage(module, w.now);
  const reply: JsonObject = {
    mode: currentThresholds(module).stateFor(value, supply.usb),
    value,
    usb: supply.usb,
    calibration: s.calibration ?? DEFAULT_CALIBRATION,
    alert: s.alert,
    sync: s.sync,
    on: s.on,
  };
  // Uptime, reported only on battery.
  if (!supply.usb) reply["minutes"] = Math.floor((module.clock.now() - module.bootedAt) / 60_000);
  if (!s.on) return reply;

  const end = module.clock.now() - w.offsetHours * HOUR_MS;
  const from = Math.max(end - w.hours * HOUR_MS, s.onAt ?? 0);
  const options = { offset: calibrationOffset(module), min: w.vmin, max: w.vmax };
  const stats = module.voltage.trend(from, end, options);
  if (!stats) return reply;
  // The hours of history the analysis actually used (schema), not the window asked for: a
  // partly covered hour counts as one.
  reply["hours"] = Math.ceil(stats.span / HOUR_MS - 1e-9);
  reply["vmin"] = centivolts(stats.min);
  reply["vmax"] = centivolts(stats.max);
  reply["vavg"] = centivolts(stats.average);
  // Change of the hourly moving average over the last day / week / month of the window; the
  // earlier average may reach an hour before the window, as long as trends were on then.
  const trendsFrom = Math.max(s.onAt ?? 0, module.voltage.startedAt);
  const movingAverage = (at: number) =>
    at - HOUR_MS >= trendsFrom ? module.voltage.trend(at - HOUR_MS, at, options)?.average : undefined;
  for (const [field, spanHours] of [
    ["daily", 24],
    ["weekly", 168],
    ["monthly", 720],
  ] as const) {
    if (w.hours < spanHours) continue;
    const latest = movingAverage(end);
    const earlier = movingAverage(end - spanHours * HOUR_MS);
    if (latest !== undefined && earlier !== undefined) reply[field] = centivolts(latest - earlier);
  }
  return reply;
}

/**
 * Trend figures to the hundredth of a volt, the resolution of every trend figure in the schema's
 * samples (vmin 3.2, vavg 3.75, daily -0.05), whose `value` keeps full precision. This also keeps
 * the hourly arithmetic's float noise (3.8999999999999995) out of replies.
 */
function centivolts(volts: number): number {
  const rounded = (Math.sign(volts) * Math.round(Math.abs(volts) * 100)) / 100;
  return rounded === 0 ? 0 : rounded;
}

/** A random number below `count` (all 32 bits without it), or `count` random bytes as a payload. */
function cardRandom({ args, module }: RequestContext): JsonObject {
  const mode = args.string("mode");
  const count = args.int("count");
  if (mode !== undefined && mode !== "payload") throw randomModeInvalid();
  if (mode === "payload") {
    if (count === undefined || count < 1 || count > MAX_RANDOM_PAYLOAD)
      throw randomPayloadCountInvalid(MAX_RANDOM_PAYLOAD);
    return { payload: encodeBase64(randomBytes(module.random, count)) };
  }
  if (count !== undefined && (count < 0 || count > 0xffff_ffff)) throw randomCountInvalid();
  return { count: count ? randomInt(module.random, count) : module.random.nextUint32() };
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** The module maintainer's contact details (synced to the hub by the sync engine). */
function cardContact({ args, module }: RequestContext): JsonObject {
  const c: Mutable<ContactSettings> = { ...module.notebox.config<ContactSettings>(CARD_KEYS.contact) };
  let changed = false;
  for (const field of ["name", "org", "role", "email"] as const) {
    const value = args.string(field);
    if (value === undefined) continue;
    if (field === "email" && value !== "" && !EMAIL.test(value)) throw emailInvalid(value);
    c[field] = value === "" ? undefined : value;
    changed = true;
  }
  if (changed) storeRecord(module.notebox, CARD_KEYS.contact, c);
  return { name: c.name, org: c.org, role: c.role, email: c.email };
}

/** I2C address and USB/LED/I2C-controller/fallback behaviours. */
function cardIo({ args, module }: RequestContext): JsonObject {
  const i2c = args.int("i2c");
  const mode = args.string("mode");
  const io: Mutable<IoSettings> = { ...module.notebox.config<IoSettings>(CARD_KEYS.io) };
  if (i2c !== undefined) {
    // 7-bit addresses outside the reserved blocks (0x00-0x07, 0x78-0x7F).
    if (i2c !== -1 && (i2c < 0x08 || i2c > 0x77)) throw i2cAddressInvalid(i2c);
    io.i2c = i2c === -1 || i2c === DEFAULT_I2C_ADDRESS ? undefined : i2c;
  }
  if (mode !== undefined) {
    if (!IO_MODES.includes(mode)) throw ioModeInvalid(mode, IO_MODES);
    if (mode === "-1") io.usbDisabled = io.busyLed = io.i2cMasterDisabled = io.ntnFallback = undefined;
    if (mode === "-usb") io.usbDisabled = true;
    if (mode === "usb" || mode === "+usb") io.usbDisabled = undefined;
    if (mode === "+busy") io.busyLed = true;
    if (mode === "-busy") io.busyLed = undefined;
    if (mode === "i2c-master-disable") io.i2cMasterDisabled = true;
    if (mode === "i2c-master-enable") io.i2cMasterDisabled = undefined;
    if (mode === "+fallback") io.ntnFallback = true;
    if (mode === "-fallback") io.ntnFallback = undefined;
  }
  storeRecord(module.notebox, CARD_KEYS.io, io);
  return {};
}
