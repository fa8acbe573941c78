import type { JsonObject } from "../../core/json.js";
import { effectiveMode, hubSettings } from "../config/HubConfig.js";
import type { ModuleContext } from "../ModuleContext.js";
import { DEFAULT_SOFTAP_NAME, WIFI_KEY, type WifiNetwork, type WifiSettings } from "../radio/WifiStation.js";
import { simError, type SimError } from "../SimError.js";
import type { VariantName } from "../Variant.js";
import type { RequestContext, RequestTable } from "./RequestTable.js";

/** card.wifi.req.notecard.api.json `skus`: CELL+WIFI, SKYLO, WIFI (a cellular module answers `request not supported for cell`). */
const WITH_WIFI: readonly VariantName[] = ["cell-wifi", "wifi", "ntn"];

/**
 * The WiFi transceiver's firmware version `card.wifi` reports: the value of the schema's samples
 * (card.wifi.rsp `version`, "3.12.3"); no other published value is known.
 */
export const WIFI_FIRMWARE_VERSION = "3.12.3";

export const wifiRequests: RequestTable = {
  "card.wifi": { handler: cardWifi, variants: WITH_WIFI },
};

// Error texts (ours: the real module's are not published).
const credentialsInContinuous = (): SimError =>
  simError(
    "card.wifi: WiFi credentials cannot change in continuous mode (a new session is needed): hub.set mode periodic or off first",
  );
export const wifiTextInvalid = (why: string): SimError =>
  simError(`card.wifi: text must be access points as ["SSID","PASSWORD"],["SSID2","PASSWORD2"]: ${why}`);

/**
 * The `text` argument: access points as JSON arrays separated by commas,
 * `["FIRST-SSID","FIRST-PASSWORD"],["SECOND-SSID","SECOND-PASSWORD"]` (card.wifi.req `text`); a
 * pair without a password, or with `-` or an empty one, is an open access point. Empty: none.
 */
export function parseWifiText(text: string): WifiNetwork[] {
  if (text.trim() === "" || text.trim() === "-") return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(`[${text}]`);
  } catch {
    throw wifiTextInvalid("it is not a comma-separated list of JSON arrays");
  }
  return (parsed as unknown[]).map((entry, i) => {
    if (!Array.isArray(entry) || entry.length < 1 || entry.length > 2)
      throw wifiTextInvalid(`entry ${i + 1} is not an array of an SSID and a password`);
    const [ssid, password] = entry as unknown[];
    if (typeof ssid !== "string" || ssid === "") throw wifiTextInvalid(`entry ${i + 1} has no SSID`);
    if (password !== undefined && typeof password !== "string")
      throw wifiTextInvalid(`entry ${i + 1}'s password is not a string`);
    return network(ssid, password);
  });
}

function network(ssid: string, password: string | undefined): WifiNetwork {
  return password === undefined || password === "" || password === "-" ? { ssid } : { ssid, password };
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * `card.wifi`: sets the access point (`ssid`, `password`; `-` clears either) or a list of them
 * (`text`), the SoftAP's `name` and `org`, and starts the SoftAP (`start:true`). Credentials are
 * kept in flash and cannot change in continuous mode (the schema's note; the same ones again are
 * no change, as a host sends them at every boot). The reply: the access
 * point's `ssid` (the one the module is on, else the first configured), its `security` and
 * `secure` (Management Frame Protection) while on it, and the transceiver's `version`.
 */
function cardWifi({ args, module }: RequestContext): JsonObject {
  const ssid = args.string("ssid");
  const password = args.string("password");
  const text = args.string("text");
  const name = args.string("name");
  const org = args.string("org");
  const start = args.bool("start");
  const credentials = ssid !== undefined || password !== undefined || text !== undefined;
  const list = text !== undefined ? parseWifiText(text) : undefined;

  const station = module.wifi;
  const was = station.settings;
  const next: Mutable<WifiSettings> = { ...was };
  if (list !== undefined) next.networks = list;
  else if (ssid !== undefined || password !== undefined)
    next.networks = single(was.networks?.[0], ssid, password);
  if (name !== undefined) next.name = name === "-" || name === "" ? undefined : name;
  if (org !== undefined) next.org = org === "-" || org === "" ? undefined : org;
  for (const key of Object.keys(next) as (keyof WifiSettings)[]) {
    const value = next[key];
    if (value === undefined || (Array.isArray(value) && value.length === 0)) delete next[key];
  }
  // The same credentials again (a host configuring the module at every boot) change nothing.
  const networks = (s: WifiSettings) => JSON.stringify(s.networks ?? []);
  if (
    networks(next) !== networks(was) &&
    effectiveMode(hubSettings(module), module.voltage.now().usb) === "continuous"
  )
    throw credentialsInContinuous();
  const changed = JSON.stringify(next) !== JSON.stringify(was);
  if (changed) module.notebox.setConfig(WIFI_KEY, Object.keys(next).length > 0 ? next : undefined);
  // Credentials, even the same ones, end the SoftAP (what its configuration page is for).
  if (changed || credentials) station.changed(credentials);
  if (start) station.startSoftAp(softApName(module, next.name));
  return wifiReply(module);
}

/** One access point from `ssid` and `password` over the one before (`-` clears either). */
function single(before: WifiNetwork | undefined, ssid?: string, password?: string): WifiNetwork[] {
  const name = ssid === undefined ? before?.ssid : ssid === "-" ? undefined : ssid;
  if (name === undefined || name === "") return [];
  const key = password === undefined ? before?.password : password;
  return [network(name, key)];
}

/**
 * The SoftAP's name: `name` (default `Notecard`), a trailing `-` followed by the last four hex
 * digits of the WiFi MAC address (card.wifi.req `name`). The MAC is derived from the DeviceUID (ours).
 */
export function softApName(module: Pick<ModuleContext, "deviceUid">, name: string | undefined): string {
  const base = name ?? DEFAULT_SOFTAP_NAME;
  if (!base.endsWith("-")) return base;
  const digits = module.deviceUid.replace(/\D/g, "");
  const suffix = (Number(digits.slice(-6) || "0") & 0xffff).toString(16).padStart(4, "0");
  return `${base}${suffix}`;
}

function wifiReply(module: ModuleContext): JsonObject {
  const station = module.wifi;
  const join = station.join();
  const reply: JsonObject = {};
  const ap = join.joined ? join.ap : undefined;
  const ssid = ap?.ssid ?? station.settings.networks?.[0]?.ssid;
  if (ssid !== undefined) reply["ssid"] = ssid;
  if (ap) {
    reply["security"] = ap.security;
    if (ap.mfp) reply["secure"] = true;
  }
  reply["version"] = WIFI_FIRMWARE_VERSION;
  return reply;
}
