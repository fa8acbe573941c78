import type { JsonObject } from "../../core/json.js";
import type { Geofence } from "./SensorSettings.js";

/** A position fix: GPS, or the fixed location of `card.location.mode fixed`. */
export interface Fix {
  readonly lat: number;
  readonly lon: number;
  readonly alt?: number;
  /** Epoch seconds of the fix. */
  readonly time: number;
  /** Module clock ms of the fix; undefined for a fix read back from flash after a restart. */
  readonly at?: number;
  readonly dop?: number;
  readonly satellites?: number;
  readonly snr?: number;
  /** Seconds the receiver searched before this fix. */
  readonly searched?: number;
  readonly source: "gps" | "fixed";
}

/**
 * What the module's sensors use of each other, through `Sensors` (so that none of them depends
 * on the others' classes): the tracker asks the GPS for its fix, the GPS asks whether the
 * accelerometer is on, track notes carry temperature and charging.
 */
export interface SensorPeers {
  /** The latest fix (GPS, or a fixed location). */
  currentFix(): Fix | undefined;
  /** The geofence of `card.location.mode`, when one is set. */
  fence(): Geofence | undefined;
  /** The GPS starts journeys (periodic mode with motion). */
  journeys(): boolean;
  /** The accelerometer is on (`card.motion.mode` did not stop it). */
  motionSensing(): boolean;
  /** Motion events counted since boot, and since such a count, and between two clock times. */
  motionTotal(): number;
  motionSince(total: number): number;
  motionCount(from: number, to: number): number;
  /** The temperature sensor's reading, °C. */
  temperatureReading(): number;
  /** Readings of an external environment sensor (BME280), when the world has one. */
  environment(): JsonObject;
  /** `card.aux` reports charging in track notes. */
  chargingReported(): boolean;
  /** `card.aux` track modes add environment readings to track notes. */
  tracksEnvironment(): boolean;
  /** Asks for a hub session now (motion-triggered sync). */
  requestSync(reason: "motion"): void;
}
