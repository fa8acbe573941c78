import type { AccessPointView } from "./AccessPoints.js";
import type { AuxPins } from "./AuxPins.js";
import type { GeoPoint } from "./geo.js";

/** Orientations the accelerometer reports (`card.motion` `status`). */
export const ORIENTATIONS = [
  "face-up",
  "face-down",
  "portrait-up",
  "portrait-down",
  "landscape-right",
  "landscape-left",
  "angled",
] as const;
export type Orientation = (typeof ORIENTATIONS)[number];

/** Where the module is, with how it moves. */
export interface WorldPosition extends GeoPoint {
  /** Ground speed, m/s. */
  readonly speed: number;
  /** Course over ground, degrees from true north. */
  readonly course: number;
  /** Dilution of precision and satellites of a recorded fix, when the track carries them. */
  readonly dop?: number;
  readonly satellites?: number;
}

/** What the GPS antenna gets from the sky. */
export interface GpsConditions {
  /** The sky is in view: a fix is possible (false: indoors, in a container, jammed). */
  readonly signal: boolean;
  /** Seconds from power-on to a fix without a recent fix (cold start). */
  readonly coldFixSeconds: number;
  /** Seconds to a fix when the receiver had one in the last two hours (hot start). */
  readonly hotFixSeconds: number;
  /** Horizontal dilution of precision of a fix. */
  readonly dop: number;
  /** Satellites used for a fix. */
  readonly satellites: number;
  /** Carrier-to-noise ratio of the strongest satellites, dB. */
  readonly snr: number;
}

/** An environmental sensor on the module's I2C bus (a BME280). */
export interface EnvironmentReading {
  /** Degrees Celsius. */
  readonly temperature: number;
  /** Relative humidity, %. */
  readonly humidity: number;
  /** Pascals. */
  readonly pressure: number;
}

/** A cell tower the module can hear; the first in a list is the serving one. */
export interface CellTower {
  readonly mcc: number;
  readonly mnc: number;
  readonly lac: number;
  readonly cid: number;
  /** Where the tower is (what a hub's tower database would say). */
  readonly lat: number;
  readonly lon: number;
  /** Received signal, dBm. */
  readonly rssi: number;
  /** Radio access technology (`lte`, `nbiot`, `gsm`...). */
  readonly rat: string;
}

/** Something happened in the world that the module may want to react to at once. */
export type WorldEvent =
  | { readonly kind: "motion"; readonly moving: boolean; readonly at: number }
  | { readonly kind: "shake"; readonly count: number; readonly at: number }
  | { readonly kind: "orientation"; readonly orientation: Orientation; readonly at: number }
  | { readonly kind: "freefall"; readonly at: number }
  | { readonly kind: "position"; readonly at: number }
  | { readonly kind: "gps"; readonly at: number }
  | { readonly kind: "charging"; readonly charging: boolean; readonly at: number };

/**
 * The world as the module's sensors see it: the port between the module and its surroundings.
 * Times are module clock milliseconds. `World` implements it for simulations; everything the
 * module knows about position, motion, temperature, light and its pins comes through here.
 */
export interface Surroundings {
  /** Where the module is now; undefined when nothing placed it anywhere (no fix is possible). */
  position(): WorldPosition | undefined;
  gps(): GpsConditions;
  /** Accelerometer motion events after `from`, up to and including `to` (for time buckets). */
  motionCount(from: number, to: number): number;
  /**
   * Motion events so far (never decreases). Differences of two readings count exactly what
   * happened in between, even events at the same millisecond as a reading.
   */
  motionTotal(): number;
  /** Time of the latest motion event up to now, if any. */
  lastMotionAt(): number | undefined;
  /** Sustained motion now (a vehicle under way, a machine running). */
  moving(): boolean;
  orientation(): Orientation;
  /** Orientations taken after `since`, oldest first. */
  orientationChanges(since: number): readonly Orientation[];
  /** A free fall happened after `since`. */
  freeFallSince(since: number): boolean;
  /** Temperature at the module, degrees Celsius. */
  temperature(): number;
  /** Illuminance in lux from a light sensor on the I2C bus; undefined without one. */
  light(): number | undefined;
  /** An environmental sensor on the I2C bus; undefined without one. */
  environment(): EnvironmentReading | undefined;
  /** The carrier board signals charging on AUX_CHARGING. */
  charging(): boolean;
  /** A Mojo power monitor sits between the supply and the module (`card.power`). */
  mojo(): boolean;
  /** Cell towers in range, serving first (empty: none). */
  towers(): readonly CellTower[];
  readonly aux: AuxPins;
  /** WiFi access points in range (`card.wifi`, the WiFi radio). */
  readonly accessPoints: AccessPointView;
  /** Calls `listener` on every world event; returns an unsubscribe function. */
  onEvent(listener: (event: WorldEvent) => void): () => void;
}
