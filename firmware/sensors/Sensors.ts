import type { ModuleCore } from "../ModuleCore.js";
import type { CellTower } from "../world/Surroundings.js";
import { PowerMonitor } from "../power/PowerMonitor.js";
import { Accelerometer } from "./Accelerometer.js";
import { AuxController } from "./AuxController.js";
import { Gnss } from "./Gnss.js";
import type { Fix, SensorPeers } from "./SensorPeers.js";
import { LocationTracker } from "./LocationTracker.js";
import { TemperatureSensor } from "./TemperatureSensor.js";
import { Triangulation, type TriangulationData } from "./Triangulation.js";

/** Why the module wants a hub session now, beside the notefiles `notebox.syncRequests()` lists. */
export interface SyncWish {
  readonly reason: "motion";
  /** Module clock ms. */
  readonly at: number;
}

/** What a hub session reports of the module's whereabouts (the event's `where_*`, `tower_*`, `tri_*`). */
export interface LocationReport {
  /** The latest fix (GPS, or a fixed location), if any. */
  readonly fix?: Fix;
  /** The serving tower and its neighbours, when the module has a cellular radio. */
  readonly towers: readonly CellTower[];
  /** Triangulation scans to send, when `card.triangulate` asks for them. */
  readonly triangulation?: TriangulationData;
}

/**
 * The module's sensors and the features built on them, all on the module clock: the GPS and its
 * schedule, the `_track.qo` tracker, the accelerometer, the temperature sensor, the AUX pins and
 * triangulation. Their settings are flash records; their state and timers are RAM, so a restart
 * disposes them and boot builds them again from the settings.
 */
export class Sensors implements SensorPeers {
  readonly gnss: Gnss;
  readonly tracker: LocationTracker;
  readonly accelerometer: Accelerometer;
  readonly temperature: TemperatureSensor;
  readonly aux: AuxController;
  readonly triangulation: Triangulation;
  /** A Mojo power monitor, when the world has one (`card.power`, `_log.qo`). */
  readonly power: PowerMonitor;
  readonly #module: ModuleCore;
  #wishes: SyncWish[] = [];

  constructor(module: ModuleCore) {
    this.#module = module;
    this.tracker = new LocationTracker(module, this);
    this.gnss = new Gnss(module, this, this.tracker);
    this.accelerometer = new Accelerometer(module, this);
    this.temperature = new TemperatureSensor(module);
    this.aux = new AuxController(module, this);
    this.triangulation = new Triangulation(module);
    this.power = new PowerMonitor(module, this.temperature);
  }

  start(): void {
    this.aux.start();
    this.accelerometer.start();
    this.temperature.start();
    this.power.start();
    this.tracker.start();
    this.gnss.start();
  }

  dispose(): void {
    this.gnss.dispose();
    this.tracker.dispose();
    this.accelerometer.dispose();
    this.temperature.dispose();
    this.power.dispose();
    this.aux.dispose();
  }

  // --- SensorPeers: what the sensors use of each other --------------------------------------

  currentFix(): Fix | undefined {
    return this.gnss.current();
  }

  fence() {
    return this.gnss.settings.fence;
  }

  journeys(): boolean {
    return this.gnss.journeys;
  }

  motionSensing(): boolean {
    return this.accelerometer.enabled;
  }

  motionTotal(): number {
    return this.accelerometer.total();
  }

  motionSince(total: number): number {
    return this.accelerometer.since(total);
  }

  motionCount(from: number, to: number): number {
    return this.accelerometer.count(from, to);
  }

  temperatureReading(): number {
    return this.temperature.reading();
  }

  environment() {
    return this.temperature.environment();
  }

  chargingReported(): boolean {
    return this.aux.chargingReported();
  }

  tracksEnvironment(): boolean {
    return this.aux.tracksEnvironment();
  }

  /** Asks for a hub session now (motion-triggered sync); the sync engine takes these. */
  requestSync(reason: SyncWish["reason"]): void {
    this.#wishes.push({ reason, at: this.#module.clock.now() });
  }

  syncWishes(): readonly SyncWish[] {
    return this.#wishes;
  }

  takeSyncWishes(): SyncWish[] {
    const wishes = this.#wishes;
    this.#wishes = [];
    return wishes;
  }

  /** The module's whereabouts for the next hub session. */
  locationReport(): LocationReport {
    const module = this.#module;
    const fix = this.gnss.current();
    const triangulation = this.triangulation.sessionData();
    return {
      ...(fix ? { fix } : {}),
      towers: module.variant.cell ? module.world.towers() : [],
      ...(triangulation ? { triangulation } : {}),
    };
  }
}
