import type { AuxPin } from "./AuxPins.js";
import type { GeoPoint } from "./geo.js";
import type { CellTower, EnvironmentReading, GpsConditions, Orientation } from "./Surroundings.js";
import { Track, type TrackPoint } from "./Track.js";
import type { PlayOptions, World } from "./World.js";

/** The World methods a change of the physical world goes through. */
export const WORLD_CHANGES = [
  "setPosition",
  "playTrack",
  "stopTrack",
  "setGps",
  "setMotion",
  "shake",
  "freeFall",
  "setOrientation",
  "setTemperature",
  "setLight",
  "setEnvironment",
  "setCharging",
  "setMojo",
  "setTowers",
  "addAccessPoint",
  "removeAccessPoint",
  "setAccessPoints",
  "driveAux",
  "releaseAux",
] as const;
export type WorldChange = (typeof WORLD_CHANGES)[number];

export function isWorldChange(op: unknown): op is WorldChange {
  return typeof op === "string" && (WORLD_CHANGES as readonly string[]).includes(op);
}

/**
 * Applies one change to the world model, given as the World method and its arguments in JSON
 * (null for undefined; a track as its points): what a scenario's capture records and replays, and
 * what the running module's control API (`cardsim world`) receives.
 */
export function applyWorldChange(world: World, op: WorldChange, args: readonly unknown[]): void {
  const a = args.map((v) => (v === null ? undefined : v));
  switch (op) {
    case "setPosition":
      return world.setPosition(a[0] as GeoPoint | undefined);
    case "playTrack":
      return world.playTrack(Track.fromPoints(a[0] as TrackPoint[]), (a[1] as PlayOptions | undefined) ?? {});
    case "stopTrack":
      return world.stopTrack();
    case "setGps":
      return world.setGps(a[0] as Partial<GpsConditions>);
    case "setMotion":
      return world.setMotion(
        a[0] as "moving" | "still" | "auto",
        ...(a[1] !== undefined ? [a[1] as number] : []),
      );
    case "shake":
      return world.shake(a[0] as number);
    case "freeFall":
      return world.freeFall();
    case "setOrientation":
      return world.setOrientation(a[0] as Orientation);
    case "setTemperature":
      return world.setTemperature(a[0] as number);
    case "setLight":
      return world.setLight(a[0] as number | undefined);
    case "setEnvironment":
      return world.setEnvironment(a[0] as EnvironmentReading | undefined);
    case "setCharging":
      return world.setCharging(a[0] as boolean);
    case "setMojo":
      if (typeof a[0] !== "boolean") throw new TypeError("setMojo takes true (attached) or false");
      return world.setMojo(a[0]);
    case "setTowers":
      return world.setTowers(a[0] as readonly CellTower[] | undefined);
    case "addAccessPoint":
      return world.accessPoints.add(a[0]);
    case "removeAccessPoint":
      return world.accessPoints.remove(String(a[0]));
    case "setAccessPoints":
      return world.accessPoints.set(a[0] as readonly unknown[] | undefined);
    case "driveAux":
      return world.aux.drive(a[0] as AuxPin, a[1] as boolean);
    case "releaseAux":
      return world.aux.release(a[0] as AuxPin);
    default:
      throw new Error(`unknown physical world change ${String(op)}`);
  }
}
