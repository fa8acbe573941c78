import type { ModuleCore } from "../ModuleCore.js";
import { supplyState } from "../power/VoltagePolicy.js";
import { VoltageVariable } from "../power/VoltageVariable.js";
import type { JsonObject } from "../../core/json.js";

/** Configuration record key of the `hub.set` settings (`HubSettings`). */
export const HUB_CONFIG_KEY = "hub";
/** Configuration record key of the LoRaWAN details (`LoraDetails`); kept by factory resets. */
export const LORA_DETAILS_KEY = "hub.lora";

export const SYNC_MODES = ["periodic", "continuous", "minimum", "off", "dfu"] as const;
export type SyncMode = (typeof SYNC_MODES)[number];
/** Modes a USB/line-power policy falls back to on battery (`umin`, `uoff`, `uperiodic`). */
export type UsbFallback = "minimum" | "off" | "periodic";

/** The hub the module syncs with until `hub.set host` names another. */
export const DEFAULT_HUB_HOST = "a.notefile.net";
/** Default length of a temporary continuous session (`hub.set on`), seconds. */
export const DEFAULT_ON_SECONDS = 300;

export interface HubSettings {
  /** Configured mode; absent means `periodic` (factory default). */
  readonly mode?: SyncMode;
  /** Mode to go back to on `dfu-completed`. */
  readonly previousMode?: SyncMode;
  /** Continuous on USB/line power, this mode on battery. */
  readonly usbFallback?: UsbFallback;
  readonly product?: string;
  readonly sn?: string;
  readonly host?: string;
  /** Minutes; absent means 0 (never sync unless told). */
  readonly outbound?: number;
  readonly inbound?: number;
  /** Voltage-variable overrides, as the host gave them (validated). */
  readonly voutbound?: string;
  readonly vinbound?: string;
  /** Minutes of each continuous session. */
  readonly duration?: number;
  readonly align?: boolean;
  /** Continuous mode: sync as soon as the hub has inbound changes. */
  readonly sync?: boolean;
  /** Seconds of a temporary continuous session (`on`); absent means 300. */
  readonly seconds?: number;
  /** Host firmware version, as the host gave it. */
  readonly version?: string | JsonObject;
  /** The user agent object host libraries send with `hub.set` (`body`). */
  readonly agent?: JsonObject;
}

export interface LoraDetails {
  readonly deveui: string;
  readonly appeui: string;
  readonly appkey: string;
}

export function hubSettings(module: ModuleCore): HubSettings {
  return module.notebox.config<HubSettings>(HUB_CONFIG_KEY) ?? {};
}

/** The mode the module is in: a USB policy picks continuous on USB power, its fallback on battery. */
export function effectiveMode(settings: HubSettings, onUsb: boolean): SyncMode {
  const mode = settings.mode ?? "periodic";
  if (mode === "dfu" || !settings.usbFallback) return mode;
  return onUsb ? "continuous" : settings.usbFallback;
}

/**
 * Sync periods in force (minutes; 0 = only when told): none outside periodic and continuous
 * modes; a voltage-variable override wins when it names the supply's present state.
 */
export function effectivePeriods(module: ModuleCore): { inbound: number; outbound: number } {
  const settings = hubSettings(module);
  const mode = effectiveMode(settings, module.voltage.now().usb);
  if (mode !== "periodic" && mode !== "continuous") return { inbound: 0, outbound: 0 };
  // Most modules set no voltage variable: the plain periods, no closure made (the schedule asks often).
  if (!settings.vinbound && !settings.voutbound)
    return { inbound: settings.inbound ?? 0, outbound: settings.outbound ?? 0 };
  const state = supplyState(module);
  return {
    inbound: periodFor(settings.inbound, settings.vinbound, state),
    outbound: periodFor(settings.outbound, settings.voutbound, state),
  };
}

/** A period: the voltage variable's value for the supply's `state` when it names one, else the plain one. */
function periodFor(plain: number | undefined, variable: string | undefined, state: string): number {
  if (variable) {
    const parsed = VoltageVariable.parse(variable, "integer");
    const value = parsed instanceof VoltageVariable ? parsed.valueFor(state) : undefined;
    if (value !== undefined) return value;
  }
  return plain ?? 0;
}
