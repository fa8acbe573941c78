import { InvalidArgumentError } from "commander";
import { SIGNAL_PRESETS, type SignalPreset } from "../firmware/radio/RadioConditions.js";
import type { HubConnection } from "../runtime/SimulatedModule.js";
import type { SupplySource } from "../runtime/supplyChange.js";

// The values of `cardsim module`'s flags, checked: a mistake is one line naming the flag. What
// they name in files and on the hub the rig reads (runtime/rigInputs.ts).

/** The flags that name files and the hub (read by the rig: runtime/rigInputs.ts). */
export interface ModuleInputFlags {
  readonly dir: string;
  /** The hub to sync with (`https://HOST:PORT`, or `http://` on loopback). */
  hub?: string;
  /** The hub's CA certificate file (default: the one in D/credentials.json). */
  hubCa?: string;
  /** The ProductUID to sync with until the host sets one (default: D/credentials.json's). */
  product?: string;
  /** Where the module is (`LAT,LON`). */
  location?: { lat: number; lon: number };
  /** A Mojo power monitor is attached (`--mojo`). */
  mojo?: boolean;
  /** A GPX or NMEA track the module travels along, and its speed for a track without times. */
  track?: string;
  trackSpeed?: number;
  /** A discharge curve (`--discharge`). */
  discharge?: string;
  /** `cardsim up`: the hub in this process the module syncs with (not a command-line option). */
  linkedHub?: HubConnection;
}

/** `LAT,LON` in degrees. */
export function parseLocation(value: string): { lat: number; lon: number } {
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$/.exec(value);
  const lat = Number(match?.[1]);
  const lon = Number(match?.[2]);
  if (!match || Math.abs(lat) > 90 || Math.abs(lon) > 180) {
    throw new InvalidArgumentError(`expected LAT,LON in degrees (like 52.52,13.405), got "${value}"`);
  }
  return { lat, lon };
}

export function parseSignal(value: string): SignalPreset {
  const preset = value.trim().toLowerCase();
  if (!(SIGNAL_PRESETS as readonly string[]).includes(preset))
    throw new InvalidArgumentError(`use one of ${SIGNAL_PRESETS.join(", ")} (none: no network at all)`);
  return preset as SignalPreset;
}

export function parseLatency(value: string): number {
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`give milliseconds >= 0, like --latency 800`);
  return n;
}

export function parseSupply(value: string): SupplySource {
  const source = value.trim().toLowerCase();
  if (source !== "usb" && source !== "battery" && source !== "line")
    throw new InvalidArgumentError("use usb, battery or line");
  return source;
}

export function parseVoltage(value: string): number {
  const n = Number(value.trim().replace(/v$/i, ""));
  if (value.trim() === "" || !Number.isFinite(n) || n < 0 || n > 30)
    throw new InvalidArgumentError("give volts between 0 and 30, like --voltage 3.7");
  return n;
}

export function parseFloatOption(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError(`expected a positive number, got "${value}"`);
  return n;
}
