import {
  DEFAULT_HUB_HOST,
  DEFAULT_ON_SECONDS,
  HUB_CONFIG_KEY,
  LORA_DETAILS_KEY,
  SYNC_MODES,
  effectiveMode,
  hubSettings,
  type HubSettings,
  type LoraDetails,
  type SyncMode,
  type UsbFallback,
} from "../config/HubConfig.js";
import {
  argumentNotSupportedOnVariant,
  argumentRequired,
  argumentsIncompatible,
  hubModeInvalid,
  hubDurationInvalid,
  hubHostInvalid,
  hubPeriodInvalid,
  hubSecondsInvalid,
  hubVersionFieldInvalid,
  loraDetailMissing,
  loraDetailNotHex,
  loraDetailsNotObject,
  notSupportedOnExtendedPower,
  voltageVariableInvalid,
} from "../errors.js";
import { storeRecord } from "../config/compactRecord.js";
import type { ModuleContext } from "../ModuleContext.js";
import { VoltageVariable } from "../power/VoltageVariable.js";
import { NOT_LORA } from "../Variant.js";
import type { Mutable } from "../../core/types.js";
import { type Args } from "./Args.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";
import { isJsonObject, type JsonObject } from "../../core/json.js";

/** Variants without LoRa (requests and arguments the LoRa module does not have). */
const INT32_MAX = 2_147_483_647;
const USB_FLAGS = [
  ["umin", "minimum"],
  ["uoff", "off"],
  ["uperiodic", "periodic"],
] as const;
const VERSION_STRINGS = ["org", "product", "description", "version", "built", "builder"];
const VERSION_INTEGERS = ["ver_major", "ver_minor", "ver_patch", "ver_build"];

/** `hub.*` requests (sync itself, `hub.sync*`, `hub.status` and `hub.signal`, come with the sync engine). */
export const hubRequests: RequestTable = {
  "hub.set": hubSet,
  "hub.get": hubGet,
  "hub.log": { handler: hubLog, variants: NOT_LORA },
};

function hubSet({ name, args, module }: RequestContext): JsonObject {
  const s: Mutable<HubSettings> = { ...hubSettings(module) };
  const { variant } = module;

  for (const field of ["product", "sn"] as const) {
    const value = args.string(field);
    if (value !== undefined) s[field] = value === "-" || value === "" ? undefined : value;
  }
  const host = args.string("host");
  if (host !== undefined) {
    if (host === "" || /\s/.test(host)) throw hubHostInvalid();
    s.host = host === "-" ? undefined : host;
  }

  applyMode(args, s);

  for (const field of ["outbound", "inbound"] as const) {
    const minutes = args.int(field);
    if (minutes === undefined) continue;
    if (minutes < -1 || minutes > INT32_MAX) throw hubPeriodInvalid(field, minutes);
    s[field] = minutes <= 0 ? undefined : minutes;
  }
  for (const field of ["voutbound", "vinbound"] as const) {
    const text = args.string(field);
    if (text === undefined) continue;
    if (variant.extendedPower) throw notSupportedOnExtendedPower(`${name} ${field}`);
    if (variant.lora) throw argumentNotSupportedOnVariant(field, variant.radio);
    if (text === "-" || text === "") {
      s[field] = undefined;
      continue;
    }
    const parsed = VoltageVariable.parse(text, "integer");
    if (!(parsed instanceof VoltageVariable)) throw voltageVariableInvalid(name, field, text, parsed.problem);
    s[field] = parsed.toString();
  }

  const duration = args.int("duration");
  if (duration !== undefined) {
    if (duration !== -1 && (duration < 15 || duration > INT32_MAX)) throw hubDurationInvalid(duration);
    s.duration = duration === -1 ? undefined : duration;
  }
  const seconds = args.int("seconds");
  if (seconds !== undefined) {
    if (seconds !== -1 && (seconds < 1 || seconds > INT32_MAX)) throw hubSecondsInvalid(seconds);
    s.seconds = seconds === -1 ? undefined : seconds;
  }

  const align = args.optionalBool("align");
  if (align !== undefined) s.align = align || undefined;
  const sync = args.optionalBool("sync");
  if (sync !== undefined) {
    if (sync && (variant.ntn || variant.lora)) throw argumentNotSupportedOnVariant("sync", variant.radio);
    s.sync = sync || undefined;
  }
  // Temporary continuous mode around a web transaction (the schedule holds a session open).
  const on = args.optionalBool("on");
  const off = args.optionalBool("off");
  if (on && off) throw argumentsIncompatible(name, "on", "off");

  const version = args.stringOrObject("version");
  if (version !== undefined) s.version = checkVersion(version);
  const agent = args.object("body");
  if (agent !== undefined) s.agent = agent;

  applyDetails(args, module);

  storeRecord(module.notebox, HUB_CONFIG_KEY, s);
  if (on) module.schedule.temporaryOn(s.seconds ?? DEFAULT_ON_SECONDS);
  if (off) module.schedule.temporaryOff();
  return {};
}

/** `mode` and the USB/line-power policies (`umin`, `uoff`, `uperiodic`). */
function applyMode(args: Args, s: Mutable<HubSettings>): void {
  const mode = args.string("mode");
  if (mode !== undefined) {
    if (mode === "-") {
      s.mode = s.previousMode = s.usbFallback = undefined;
    } else if (mode === "dfu-completed") {
      // Back to the mode the module was in before dfu; outside dfu there is nothing to finish.
      if (s.mode === "dfu") {
        s.mode = s.previousMode === "periodic" ? undefined : s.previousMode;
        s.previousMode = undefined;
      }
    } else if ((SYNC_MODES as readonly string[]).includes(mode)) {
      const next = mode as SyncMode;
      if (next === "dfu") {
        if (s.mode !== "dfu") s.previousMode = s.mode ?? "periodic";
      } else {
        s.previousMode = undefined;
        s.usbFallback = undefined; // an explicit mode ends a USB/line-power policy
      }
      s.mode = next === "periodic" ? undefined : next;
    } else throw hubModeInvalid(mode);
  }
  const chosen: UsbFallback[] = [];
  for (const [flag, fallback] of USB_FLAGS) {
    const value = args.optionalBool(flag);
    if (value) chosen.push(fallback);
    else if (value === false && s.usbFallback === fallback) s.usbFallback = undefined;
  }
  if (chosen.length > 1) {
    const flags = USB_FLAGS.filter(([, f]) => chosen.includes(f)).map(([flag]) => flag);
    throw argumentsIncompatible("hub.set", flags[0]!, flags[1]!);
  }
  if (chosen[0]) s.usbFallback = chosen[0];
}

function checkVersion(version: string | JsonObject): string | JsonObject {
  if (typeof version === "string") return version;
  for (const [key, value] of Object.entries(version)) {
    if (value === null) continue;
    if (VERSION_STRINGS.includes(key) && typeof value !== "string")
      throw hubVersionFieldInvalid(key, "a string");
    if (VERSION_INTEGERS.includes(key) && !(typeof value === "number" && Number.isInteger(value)))
      throw hubVersionFieldInvalid(key, "an integer");
  }
  return version;
}

const HEX = /^[0-9A-Fa-f]+$/;
const DETAIL_LENGTHS = { deveui: 16, appeui: 16, appkey: 32 } as const;

/** LoRaWAN join details (LoRa only); kept in their own record so a factory reset keeps them. */
function applyDetails(args: Args, module: ModuleContext): void {
  const details = args.stringOrObject("details");
  if (details === undefined) return;
  if (!module.variant.lora) throw argumentNotSupportedOnVariant("details", module.variant.radio);
  if (details === "-") {
    module.notebox.setConfig(LORA_DETAILS_KEY, undefined);
    return;
  }
  if (!isJsonObject(details)) throw loraDetailsNotObject(details);
  const out: Record<string, string> = {};
  for (const [key, length] of Object.entries(DETAIL_LENGTHS) as [keyof LoraDetails, number][]) {
    const value = details[key];
    if (value === undefined || value === null) throw loraDetailMissing(key);
    if (typeof value !== "string" || !HEX.test(value) || value.length !== length)
      throw loraDetailNotHex(key, length);
    out[key] = value.toUpperCase();
  }
  const stored: LoraDetails = { deveui: out["deveui"]!, appeui: out["appeui"]!, appkey: out["appkey"]! };
  module.notebox.setConfig(LORA_DETAILS_KEY, stored);
}

function hubGet({ module }: RequestContext): JsonObject {
  const s = hubSettings(module);
  const mode = effectiveMode(s, module.voltage.now().usb);
  return {
    device: module.deviceUid,
    product: s.product,
    mode,
    outbound: s.outbound,
    voutbound: s.voutbound,
    inbound: s.inbound,
    vinbound: s.vinbound,
    host: s.host ?? module.hubLink.host ?? DEFAULT_HUB_HOST,
    sn: s.sn,
    // The schema: true only in continuous mode with sync set. The setting itself is kept, so it
    // applies again when the module is back in continuous mode.
    sync: mode === "continuous" && s.sync,
  };
}

/** The host's health log: queued in `_health_host.qo` for the next sync. */
function hubLog({ name, args, module }: RequestContext): JsonObject {
  const text = args.string("text");
  const alert = args.bool("alert");
  const sync = args.bool("sync");
  if (text === undefined || text === "") throw argumentRequired(name, "text");
  const body: JsonObject = alert ? { text, alert } : { text };
  module.notebox.appendToQueue("_health_host.qo", { body, time: module.noteTime() });
  // Recorded like note.add's `sync`: the sync engine takes the request when it exists.
  if (sync) {
    module.notebox.requestSync("_health_host.qo");
    // The host asks for this sync itself: the hub-connection box does not hold it back.
    module.schedule.lift(["hub"]);
  }
  return {};
}
