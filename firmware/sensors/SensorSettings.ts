import type { ModuleCore } from "../ModuleCore.js";

/**
 * Configuration records of the location, motion, temperature and AUX requests (Notebox config
 * keys and their shapes). Settings live in flash as the real module's do; what the sensors
 * measure and count lives in RAM and starts again at every boot. docs/world.md lists them.
 */
export const SENSOR_KEYS = {
  location: "card.location.mode",
  /** The last location fix, kept across restarts (`card.location.mode delete:true` drops it). */
  lastFix: "card.location.last",
  track: "card.location.track",
  triangulate: "card.triangulate",
  motion: "card.motion.mode",
  motionTrack: "card.motion.track",
  motionSync: "card.motion.sync",
  temp: "card.temp",
  aux: "card.aux",
  auxSerial: "card.aux.serial",
  carrier: "card.carrier",
  monitor: "card.monitor",
} as const;

export type LocationMode = "off" | "periodic" | "continuous" | "fixed";

export interface Geofence {
  readonly lat: number;
  readonly lon: number;
  /** Radius, metres; absent: a center waiting for a radius (the geofence is off). */
  readonly max?: number;
  /** Minutes outside before the module counts as having left (default 5). */
  readonly minutes?: number;
}

export interface LocationSettings {
  /** Absent: off (the default). */
  readonly mode?: "periodic" | "continuous" | "fixed";
  readonly seconds?: number;
  readonly vseconds?: string;
  readonly threshold?: number;
  readonly fence?: Geofence;
  /** The place `fixed` mode reports. */
  readonly fixed?: { readonly lat: number; readonly lon: number };
}

/** The last fix as kept in flash. */
export interface StoredFix {
  readonly lat: number;
  readonly lon: number;
  readonly alt?: number;
  /** Epoch seconds of the fix. */
  readonly time: number;
  readonly dop?: number;
}

export interface TrackSettings {
  readonly on?: boolean;
  readonly file?: string;
  readonly heartbeat?: boolean;
  /** Heartbeat interval: hours when positive, minutes when negative. */
  readonly hours?: number;
  readonly sync?: boolean;
}

export interface TriangulateSettings {
  readonly mode?: string;
  readonly on?: boolean;
  readonly usb?: boolean;
  readonly minutes?: number;
}

export interface MotionSettings {
  /** `card.motion.mode start:true`: `card.motion` reports. */
  readonly started?: boolean;
  /** `card.motion.mode stop:true`: the accelerometer is off. */
  readonly stopped?: boolean;
  /** Seconds per bucket of movements. */
  readonly seconds?: number;
  readonly sensitivity?: number;
  /** Events in a bucket that make the module `moving`. */
  readonly motion?: number;
}

export interface MotionTrackSettings {
  readonly on?: boolean;
  readonly file?: string;
  readonly minutes?: number;
  readonly count?: number;
  readonly threshold?: number;
  readonly now?: boolean;
}

export interface MotionSyncSettings {
  readonly on?: boolean;
  readonly minutes?: number;
  readonly count?: number;
  readonly threshold?: number;
}

export interface TempSettings {
  readonly minutes?: number;
  /** Voltage-variable minutes, overriding `minutes`. */
  readonly status?: string;
}

export interface AuxSettings {
  readonly mode?: string;
  readonly usage?: readonly string[];
  readonly seconds?: number;
  readonly max?: number;
  readonly ms?: number;
  readonly sync?: boolean;
  readonly file?: string;
  readonly connected?: boolean;
  readonly rate?: number;
  readonly count?: number;
  readonly offset?: number;
  readonly sensitivity?: number;
  readonly limit?: boolean;
  readonly gps?: boolean;
}

export interface AuxSerialSettings {
  readonly mode?: string;
  readonly rate?: number;
  readonly duration?: number;
  readonly minutes?: number;
  readonly max?: number;
  readonly ms?: number;
  readonly limit?: boolean;
}

export interface CarrierSettings {
  readonly charging?: boolean;
}

export function readSettings<T extends object>(module: ModuleCore, key: string): T {
  return module.notebox.config<T>(key) ?? ({} as T);
}
