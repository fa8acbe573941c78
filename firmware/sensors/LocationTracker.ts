import type { ModuleCore } from "../ModuleCore.js";
import { measuredVoltage } from "../power/VoltagePolicy.js";
import { bearingDegrees, distanceMeters } from "../world/geo.js";
import type { GnssListener } from "./Gnss.js";
import type { Fix, SensorPeers } from "./SensorPeers.js";
import { readSettings, SENSOR_KEYS, type TrackSettings } from "./SensorSettings.js";
import { SensorTimer } from "./SensorTimer.js";
import type { JsonObject } from "../../core/json.js";
import { inBackground } from "../inBackground.js";

export const DEFAULT_TRACK_FILE = "_track.qo";
/** Heartbeat interval when `heartbeat:true` comes without `hours` (ours: the vendor names none). */
export const DEFAULT_HEARTBEAT_HOURS = 24;

interface LastNote {
  /** Module clock ms the note was written. */
  readonly at: number;
  /** The accelerometer's motion total then. */
  readonly total: number;
  readonly fix: Fix | undefined;
}

/**
 * `card.location.track`: writes a `_track.qo` note (or one in `file`) for every new fix the GPS
 * takes because the module moved, and a heartbeat note when nothing was written for `hours`. A
 * journey is a run of notes without a stop in between: `journey` is its first note's fix time and
 * `jcount` counts its notes (continuous mode, and periodic mode under five minutes). Each note
 * says how far (`distance`, metres), which way (`bearing`) and how fast (`velocity`, m/s, the
 * distance over the `seconds` since the previous note) the module went, with the `motion` events
 * counted since then, the fix's `dop` and `time`, and the `temperature` and `voltage`. The note
 * carries the fix as its location.
 */
export class LocationTracker implements GnssListener {
  readonly #module: ModuleCore;
  #last: LastNote | undefined;
  #journey: { id: number; count: number } | undefined;
  #payload: Uint8Array | undefined;
  readonly #heartbeat: SensorTimer;
  #fenceInside: boolean | undefined;
  #outsideSince: number | undefined;
  #disposed = false;

  readonly #peers: SensorPeers;

  constructor(module: ModuleCore, peers: SensorPeers) {
    this.#module = module;
    this.#peers = peers;
    this.#heartbeat = new SensorTimer(module.clock);
  }

  get settings(): TrackSettings {
    return readSettings<TrackSettings>(this.#module, SENSOR_KEYS.track);
  }

  get file(): string {
    return this.settings.file ?? DEFAULT_TRACK_FILE;
  }

  /** A journey is under way. */
  get journey(): boolean {
    return this.#journey !== undefined;
  }

  /** Heartbeat interval in minutes, or undefined without heartbeats. */
  get heartbeatMinutes(): number | undefined {
    const s = this.settings;
    if (!s.heartbeat) return undefined;
    const hours = s.hours ?? DEFAULT_HEARTBEAT_HOURS;
    return hours > 0 ? hours * 60 : -hours;
  }

  start(): void {
    this.#planHeartbeat();
  }

  /** Applies the settings now (after `card.location.track`). */
  reconfigure(): void {
    if (!this.settings.on) {
      this.#journey = undefined;
      this.#last = undefined;
    }
    this.#planHeartbeat();
  }

  /** A payload for the next note only (`payload`). */
  attachPayload(payload: Uint8Array): void {
    this.#payload = payload;
  }

  dispose(): void {
    this.#disposed = true;
    this.#heartbeat.clear();
  }

  // --- GnssListener ----------------------------------------------------------------------------

  fix(fix: Fix, moved: boolean): void {
    if (!this.settings.on) return;
    if (moved && this.#peers.journeys()) {
      this.#journey ??= { id: fix.time, count: 0 };
      this.#journey.count++;
    }
    this.#write(fix, false);
  }

  still(_at: number): void {
    this.#journey = undefined;
  }

  // --- internals -------------------------------------------------------------------------------

  #write(fix: Fix | undefined, heartbeat: boolean): void {
    const module = this.#module;
    const now = module.clock.now();
    const peers = this.#peers;
    const total = peers.motionTotal();
    const previous = this.#last;
    const body: JsonObject = {};
    if (this.#journey && !heartbeat) {
      body["journey"] = this.#journey.id;
      body["jcount"] = this.#journey.count;
    }
    if (heartbeat) body["heartbeat"] = true;
    body["motion"] = previous ? peers.motionSince(previous.total) : peers.motionCount(module.bootedAt, now);
    if (previous) {
      const seconds = Math.round((now - previous.at) / 1000);
      body["seconds"] = seconds;
      if (fix && previous.fix) {
        const distance = distanceMeters(previous.fix, fix);
        body["distance"] = round(distance, 3);
        if (distance > 0) body["bearing"] = round(bearingDegrees(previous.fix, fix), 2);
        if (seconds > 0) body["velocity"] = round(distance / seconds, 3);
      }
    }
    if (fix) {
      body["dop"] = fix.dop;
      body["time"] = fix.time;
    }
    body["temperature"] = peers.temperatureReading();
    body["voltage"] = round(measuredVoltage(module), 4);
    if (module.voltage.now().usb) body["usb"] = true;
    if (peers.chargingReported()) body["charging"] = true;
    if (fix && this.#insideFence(fix)) body["inside_fence"] = true;
    if (peers.tracksEnvironment()) Object.assign(body, peers.environment());
    const content = {
      body: prune(body),
      time: module.noteTime(),
      ...(fix ? { where: { lat: fix.lat, lon: fix.lon, time: fix.time } } : {}),
      ...(this.#payload ? { payload: this.#payload } : {}),
    };
    this.#payload = undefined;
    module.notebox.appendToQueue(this.file, content);
    if (this.settings.sync) module.notebox.requestSync(this.file);
    this.#last = { at: now, total, fix: fix ?? previous?.fix };
    this.#planHeartbeat();
  }

  /** Inside the geofence; crossing it (after `minutes` outside when leaving) asks for a sync. */
  #insideFence(fix: Fix): boolean {
    const module = this.#module;
    const fence = this.#peers.fence();
    if (fence?.max === undefined) return false;
    const inside = distanceMeters(fence, fix) <= fence.max;
    const at = fix.at ?? module.clock.now();
    let crossed = false;
    if (inside) {
      this.#outsideSince = undefined;
      crossed = this.#fenceInside === false;
      this.#fenceInside = true;
    } else {
      this.#outsideSince ??= at;
      if (this.#fenceInside !== false && at - this.#outsideSince >= (fence.minutes ?? 5) * 60_000) {
        crossed = this.#fenceInside === true;
        this.#fenceInside = false;
      }
    }
    if (crossed) module.notebox.requestSync(this.file);
    return inside;
  }

  #planHeartbeat(): void {
    const clock = this.#module.clock;
    this.#heartbeat.clear();
    const minutes = this.heartbeatMinutes;
    if (!this.settings.on || minutes === undefined || minutes <= 0 || this.#disposed) return;
    const since = this.#last?.at ?? clock.now();
    const due = since + minutes * 60_000;
    this.#heartbeat.set(due - clock.now(), () =>
      inBackground(
        this.#module,
        "track heartbeat",
        () => {
          if (this.settings.on) this.#write(this.#peers.currentFix(), true);
        },
        () => this.#disposed,
      ),
    );
  }
}

function round(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round(value * f) / f;
}

/** Leaves out zero, false and empty members, as the module does in the notes it writes. */
function prune(body: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(body))
    if (v !== undefined && v !== 0 && v !== false && v !== "") out[k] = v;
  return out;
}
