import type { JsonObject } from "../../core/json.js";
import {
  argumentNotSupportedOnVariant,
  transportMethodInvalid,
  transportSecondsInvalid,
  wirelessHoursInvalid,
  wirelessMethodInvalid,
  wirelessModeInvalid,
} from "../errors.js";
import type { ModuleContext } from "../ModuleContext.js";
import type { RadioState } from "../radio/RadioConditions.js";
import {
  TRANSPORT_KEY,
  TRANSPORT_ORDER,
  transportInForce,
  transportMethodsOf,
  type TransportSettings,
} from "../radio/TransportRadio.js";
import type { Variant, VariantName } from "../Variant.js";
import { variantsWith } from "../Variant.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";

/** Notebox config keys of the radio settings (kept across restarts, cleared by a factory reset). */
export const RADIO_KEYS = {
  /** `card.wireless`: `WirelessSettings`. */
  wireless: "card.wireless",
  /** `card.transport`: `TransportSettings`. */
  transport: TRANSPORT_KEY,
} as const;

export interface WirelessSettings {
  /** `auto` (absent), `m` (LTE-M), `nb` (NB-IoT), `gprs`. */
  readonly mode?: string;
  readonly apn?: string;
  /** SIM selection: `primary`, `secondary`, `dual-primary-secondary`, `dual-secondary-primary`. */
  readonly method?: string;
  /** Hours on the secondary SIM before the primary is tried again. */
  readonly hours?: number;
}

const WIRELESS_MODES = ["auto", "m", "nb", "gprs"];
const WIRELESS_METHODS = ["primary", "secondary", "dual-primary-secondary", "dual-secondary-primary"];
/** card.transport.req.notecard.api.json `skus`: CELL, CELL+WIFI, SKYLO, WIFI (not LoRa). */
const WITH_TRANSPORTS: readonly VariantName[] = ["cell", "cell-wifi", "wifi", "ntn"];

export const radioRequests: RequestTable = {
  "card.wireless": { handler: cardWireless, variants: variantsWith("cell") },
  "card.transport": { handler: cardTransport, variants: WITH_TRANSPORTS },
};

// --- card.wireless ---------------------------------------------------------------------------

function cardWireless({ args, module }: RequestContext): JsonObject {
  const mode = args.string("mode");
  const apn = args.string("apn");
  const method = args.string("method");
  const hours = args.int("hours");
  if (mode !== undefined && mode !== "-" && !WIRELESS_MODES.includes(mode)) throw wirelessModeInvalid(mode);
  if (method !== undefined && method !== "-" && !WIRELESS_METHODS.includes(method))
    throw wirelessMethodInvalid(method);
  if (hours !== undefined && hours < -1) throw wirelessHoursInvalid(hours);
  const box = module.notebox;
  if (mode !== undefined || apn !== undefined || method !== undefined || hours !== undefined) {
    const was = box.config<WirelessSettings>(RADIO_KEYS.wireless) ?? {};
    const next: { -readonly [K in keyof WirelessSettings]: WirelessSettings[K] } = { ...was };
    if (mode !== undefined) setOrReset(next, "mode", mode === "-" || mode === "auto" ? undefined : mode);
    if (apn !== undefined) setOrReset(next, "apn", apn === "-" || apn === "" ? undefined : apn);
    if (method !== undefined) setOrReset(next, "method", method === "-" ? undefined : method);
    if (hours !== undefined) setOrReset(next, "hours", hours === -1 ? undefined : hours);
    if (Object.keys(next).length === 0) box.setConfig(RADIO_KEYS.wireless, undefined);
    else box.setConfig(RADIO_KEYS.wireless, next);
  }
  const settings = box.config<WirelessSettings>(RADIO_KEYS.wireless) ?? {};
  const radio = module.radio.state();
  const reply: JsonObject = {
    status: wirelessStatus(module, radio),
    ...(settings.mode ? { mode: settings.mode } : {}),
    count: radio.registered ? radio.bars : 0,
    net: wirelessNet(module, radio, settings),
  };
  return reply;
}

function setOrReset<T extends object, K extends keyof T>(record: T, key: K, value: T[K] | undefined): void {
  if (value === undefined) delete record[key];
  else record[key] = value;
}

/**
 * The modem's state as `card.wireless` words it: off between sessions (periodic mode), waiting
 * for a network while a session looks for one, registered while a session is up.
 */
function wirelessStatus(module: ModuleContext, radio: RadioState): string {
  const sync = module.sync.status();
  const active = sync.running || module.sync.isOnline;
  if (!active) return "{modem-off}";
  if (!radio.registered) return "{cell-registration-wait}";
  return "{cell-registered}";
}

/**
 * The `net` object: the SIM and modem identity (derived from the DeviceUID, which is the IMEI on
 * a cellular module), and the radio's measurements while it is registered.
 */
function wirelessNet(module: ModuleContext, radio: RadioState, settings: WirelessSettings): JsonObject {
  const digits = module.deviceUid.replace(/^dev:/, "");
  const tail = digits.slice(-9).padStart(9, "0");
  const net: JsonObject = {
    iccid: `8901410${digits.slice(-12).padStart(12, "0")}`,
    imsi: `310410${tail}`,
    imei: digits,
    modem: modemOf(module.variant),
  };
  if (settings.apn) net["apn"] = settings.apn;
  if (!radio.registered) return net;
  const tower = module.variant.cell ? module.world.towers()[0] : undefined;
  const band = bandOf(radio.rat);
  Object.assign(net, {
    ...(band ? { band } : {}),
    rat: radio.rat,
    rssi: radio.rssi,
    ...(radio.rsrp !== 0 || radio.rsrq !== 0 ? { rsrp: radio.rsrp, sinr: radio.sinr, rsrq: radio.rsrq } : {}),
    bars: radio.bars,
    mcc: tower?.mcc ?? 310,
    mnc: tower?.mnc ?? 410,
    lac: tower?.lac ?? 1,
    cid: tower?.cid ?? 1,
  });
  const time = module.time();
  if (time !== undefined) net["updated"] = time;
  return net;
}

/** The modem family of a variant's SKU (firmware revisions are not modelled). */
function modemOf(variant: Variant): string {
  if (variant.ntn) return "BG95-S5";
  if (variant.sku.startsWith("NOTE-WB")) return "EG91";
  return "BG95-M3";
}

function bandOf(rat: string): string | undefined {
  if (rat === "lte" || rat === "catm") return "LTE BAND 2";
  if (rat === "nbiot") return "LTE BAND 66";
  if (rat === "gsm") return "GSM 1900";
  return undefined;
}

// --- card.transport --------------------------------------------------------------------------

function cardTransport({ args, module }: RequestContext): JsonObject {
  const method = args.string("method");
  const seconds = args.int("seconds");
  const hasAllow = args.has("allow");
  const allow = args.bool("allow");
  const hasUmin = args.has("umin");
  const umin = args.bool("umin");
  const variant = module.variant;
  if (method !== undefined && method !== "-") {
    if (!(method in TRANSPORT_ORDER))
      throw transportMethodInvalid(method, ["-", ...Object.keys(TRANSPORT_ORDER)]);
    if (!transportMethodsOf(variant).includes(method))
      throw argumentNotSupportedOnVariant(`method ${method}`, variant.radio);
  }
  if (seconds !== undefined && seconds < -1) throw transportSecondsInvalid(seconds);
  const box = module.notebox;
  if (method !== undefined || seconds !== undefined || hasAllow || hasUmin) {
    const was = box.config<TransportSettings>(RADIO_KEYS.transport) ?? {};
    const next: { -readonly [K in keyof TransportSettings]: TransportSettings[K] } = { ...was };
    if (method !== undefined) setOrReset(next, "method", method === "-" ? undefined : method);
    if (seconds !== undefined) setOrReset(next, "seconds", seconds === -1 ? undefined : seconds);
    if (hasAllow) setOrReset(next, "allow", allow || undefined);
    if (hasUmin) setOrReset(next, "umin", umin || undefined);
    if (Object.keys(next).length === 0) box.setConfig(RADIO_KEYS.transport, undefined);
    else box.setConfig(RADIO_KEYS.transport, next);
  }
  const settings = box.config<TransportSettings>(RADIO_KEYS.transport) ?? {};
  return {
    method: transportInForce(variant, settings).method,
    ...(settings.seconds !== undefined ? { seconds: settings.seconds } : {}),
    ...(settings.allow ? { allow: true } : {}),
    ...(settings.umin ? { umin: true } : {}),
  };
}
