import type { Clock, TimerHandle } from "../../core/Clock.js";
import { AccessPointList } from "./AccessPoints.js";
import { SimAuxLines } from "./AuxPins.js";
import { isLatitude, isLongitude, type GeoPoint } from "./geo.js";
import type {
  CellTower,
  EnvironmentReading,
  GpsConditions,
  Orientation,
  Surroundings,
  WorldEvent,
  WorldPosition,
} from "./Surroundings.js";
import { ORIENTATIONS } from "./Surroundings.js";
import { PARKED_SPEED, type Track } from "./Track.js";

export interface WorldOptions {
  readonly clock: Clock;
  /** Where the module starts (fixed); nowhere by default, so no GPS fix is possible. */
  readonly position?: GeoPoint;
  /** Degrees Celsius at the module (default 24). */
  readonly temperature?: number;
  readonly gps?: Partial<GpsConditions>;
}

export interface PlayOptions {
  /** Playback speed: 2 plays a one-hour track in 30 minutes (default 1). */
  readonly timeScale?: number;
  /** Start again from the first point at the end (default: stop at the last point). */
  readonly loop?: boolean;
  /** Start this many ms into the track (default 0). */
  readonly from?: number;
}

/** Motion events per minute while a track is under way or motion is set without a rate. */
export const DEFAULT_MOTION_RATE = 20;

export const DEFAULT_GPS: GpsConditions = {
  signal: true,
  coldFixSeconds: 30,
  hotFixSeconds: 5,
  dop: 1.2,
  satellites: 9,
  snr: 41,
};

/** Cell grid the default towers sit on, degrees (about 2 km). */
const TOWER_GRID = 0.02;
/** History kept for motion queries: older entries are folded into a base count. */
const MAX_HISTORY = 4096;
const MAX_EVENTS = 256;
/** Longest delay a platform timer takes; a longer wait is re-armed when this one fires. */
const MAX_TIMER_MS = 2_147_483_647;

interface RateSegment {
  readonly at: number;
  /** Motion events per minute from `at` on. */
  readonly rate: number;
  /** Fractional events counted before `at`. */
  readonly base: number;
}

interface Playback {
  readonly track: Track;
  readonly startedAt: number;
  readonly timeScale: number;
  readonly loop: boolean;
  readonly from: number;
}

type MotionOverride = { readonly moving: boolean; readonly rate: number } | undefined;

/**
 * The world around one module, on the module clock: where it is (a fixed place, or a track played
 * in time), what its GPS antenna sees, how it moves and lies, the temperature and light around
 * it, a sensor on its I2C bus, the towers it hears, and four GPIO lines on its AUX pins. A
 * scenario, the command line or a control API drives it with plain method calls; the module
 * reads it through the Surroundings port. It lives outside the module, so a module restart
 * does not move it.
 */
export class World implements Surroundings {
  readonly clock: Clock;
  readonly aux: SimAuxLines;
  readonly accessPoints = new AccessPointList();
  #fixed: GeoPoint | undefined;
  #playback: Playback | undefined;
  #trackTimer: TimerHandle | undefined;
  #trackMoving = false;
  #gps: GpsConditions;
  #override: MotionOverride;
  #segments: RateSegment[];
  #shakes: { at: number; total: number }[] = [];
  #shakeBase = 0;
  #orientation: Orientation = "face-up";
  #orientations: { at: number; orientation: Orientation }[] = [];
  #falls: number[] = [];
  #temperature: number;
  #light: number | undefined;
  #environment: EnvironmentReading | undefined;
  #charging = false;
  #mojo = false;
  #towers: readonly CellTower[] | undefined;
  readonly #listeners = new Set<(event: WorldEvent) => void>();

  constructor(options: WorldOptions) {
    this.clock = options.clock;
    this.aux = new SimAuxLines(options.clock);
    if (options.position) this.#fixed = checkPoint(options.position);
    this.#temperature = options.temperature ?? 24;
    this.#gps = { ...DEFAULT_GPS, ...options.gps };
    this.#segments = [{ at: options.clock.now(), rate: 0, base: 0 }];
  }

  // --- position ------------------------------------------------------------------------------

  /** Puts the module at a fixed place (stops any track); undefined: nowhere, no fix possible. */
  setPosition(point: GeoPoint | undefined): void {
    this.#stopPlayback();
    this.#fixed = point === undefined ? undefined : checkPoint(point);
    this.#motionChanged();
    this.#emit({ kind: "position", at: this.clock.now() });
  }

  /** Plays a track from now on the module clock; motion follows it (under way or parked). */
  playTrack(track: Track, options: PlayOptions = {}): void {
    const timeScale = options.timeScale ?? 1;
    if (!Number.isFinite(timeScale) || timeScale <= 0)
      throw new RangeError(`timeScale must be a positive number, got ${timeScale}`);
    const from = options.from ?? 0;
    if (!Number.isFinite(from) || from < 0) throw new RangeError(`from must be >= 0 ms, got ${from}`);
    this.#stopPlayback();
    this.#playback = { track, startedAt: this.clock.now(), timeScale, loop: options.loop ?? false, from };
    this.#followTrack();
    this.#emit({ kind: "position", at: this.clock.now() });
  }

  /** Stops a playing track where it is now: the module stays at that place. */
  stopTrack(): void {
    if (!this.#playback) return;
    const here = this.position();
    this.#stopPlayback();
    this.#fixed = here
      ? { lat: here.lat, lon: here.lon, ...(here.alt === undefined ? {} : { alt: here.alt }) }
      : undefined;
    this.#motionChanged();
    this.#emit({ kind: "position", at: this.clock.now() });
  }

  /** A track is playing (and has not reached its end). */
  get playing(): boolean {
    const p = this.#playback;
    return p !== undefined && (p.loop || this.#offset(p) < p.track.durationMs);
  }

  /** Milliseconds into the playing track, or undefined. */
  get trackOffset(): number | undefined {
    return this.#playback ? this.#offset(this.#playback) : undefined;
  }

  position(): WorldPosition | undefined {
    const p = this.#playback;
    if (p) {
      const s = p.track.stateAt(this.#offset(p));
      const speed = s.speed * p.timeScale;
      const pos: WorldPosition = { lat: s.lat, lon: s.lon, speed, course: s.course };
      return {
        ...pos,
        ...(s.alt === undefined ? {} : { alt: s.alt }),
        ...(s.dop === undefined ? {} : { dop: s.dop }),
        ...(s.satellites === undefined ? {} : { satellites: s.satellites }),
      };
    }
    return this.#fixed ? { ...this.#fixed, speed: 0, course: 0 } : undefined;
  }

  // --- GPS -------------------------------------------------------------------------------------

  /** Changes what the GPS antenna gets (e.g. `{signal:false}` to drive into a tunnel). */
  setGps(conditions: Partial<GpsConditions>): void {
    const next = { ...this.#gps, ...conditions };
    for (const key of ["coldFixSeconds", "hotFixSeconds", "dop", "satellites", "snr"] as const)
      if (!Number.isFinite(next[key]) || next[key] < 0)
        throw new RangeError(`gps ${key} must be a number >= 0, got ${next[key]}`);
    this.#gps = next;
    this.#emit({ kind: "gps", at: this.clock.now() });
  }

  gps(): GpsConditions {
    return this.#gps;
  }

  // --- motion ----------------------------------------------------------------------------------

  /**
   * Sets sustained motion: `moving` (at `rate` events per minute), `still`, or `auto` (follow a
   * playing track: moving while it is under way). Default `auto`.
   */
  setMotion(state: "moving" | "still" | "auto", rate = DEFAULT_MOTION_RATE): void {
    if (!Number.isFinite(rate) || rate < 0)
      throw new RangeError(`motion rate must be >= 0 per minute, got ${rate}`);
    this.#override =
      state === "auto" ? undefined : { moving: state === "moving", rate: state === "moving" ? rate : 0 };
    this.#motionChanged();
  }

  /** Shakes the module: `count` motion events now. */
  shake(count = 1): void {
    if (!Number.isInteger(count) || count < 1)
      throw new RangeError(`shake count must be a whole number >= 1, got ${count}`);
    const at = this.clock.now();
    const total = (this.#shakes[this.#shakes.length - 1]?.total ?? this.#shakeBase) + count;
    this.#shakes.push({ at, total });
    if (this.#shakes.length > MAX_HISTORY) this.#shakeBase = this.#shakes.shift()!.total;
    this.#emit({ kind: "shake", count, at });
  }

  /** The module falls (the accelerometer's free-fall alert), and lands with a jolt. */
  freeFall(): void {
    const at = this.clock.now();
    this.#falls.push(at);
    if (this.#falls.length > MAX_EVENTS) this.#falls.shift();
    this.#emit({ kind: "freefall", at });
    this.shake(1);
  }

  /** Turns the module to lie in `orientation`. */
  setOrientation(orientation: Orientation): void {
    if (!(ORIENTATIONS as readonly string[]).includes(orientation))
      throw new RangeError(`orientation must be one of ${ORIENTATIONS.join(", ")}`);
    if (orientation === this.#orientation) return;
    const at = this.clock.now();
    this.#orientation = orientation;
    this.#orientations.push({ at, orientation });
    if (this.#orientations.length > MAX_EVENTS) this.#orientations.shift();
    this.#emit({ kind: "orientation", orientation, at });
  }

  motionCount(from: number, to: number): number {
    if (to <= from) return 0;
    return this.#cumulative(to) - this.#cumulative(from);
  }

  motionTotal(): number {
    return this.#cumulative(this.clock.now());
  }

  lastMotionAt(): number | undefined {
    const now = this.clock.now();
    const shake = this.#shakes[this.#shakes.length - 1]?.at;
    let rated: number | undefined;
    // Walk back to the latest segment in which the count went up.
    for (let i = this.#segments.length - 1; i >= 0 && rated === undefined; i--) {
      const s = this.#segments[i]!;
      const end = Math.min(this.#segments[i + 1]?.at ?? now, now);
      if (s.rate <= 0 || end <= s.at) continue;
      const perMs = s.rate / 60_000;
      const last = Math.floor(s.base + (end - s.at) * perMs);
      if (last <= s.base) continue;
      rated = Math.max(s.at, s.at + Math.ceil((last - s.base) / perMs));
      rated = Math.min(rated, end);
    }
    if (shake === undefined) return rated;
    return rated === undefined ? shake : Math.max(shake, rated);
  }

  moving(): boolean {
    return this.#rateNow() > 0;
  }

  orientation(): Orientation {
    return this.#orientation;
  }

  orientationChanges(since: number): readonly Orientation[] {
    return this.#orientations.filter((o) => o.at > since).map((o) => o.orientation);
  }

  freeFallSince(since: number): boolean {
    return this.#falls.some((at) => at > since);
  }

  // --- environment -----------------------------------------------------------------------------

  setTemperature(celsius: number): void {
    if (!Number.isFinite(celsius) || celsius < -273.15)
      throw new RangeError(`temperature must be degrees Celsius, got ${celsius}`);
    this.#temperature = celsius;
  }

  temperature(): number {
    return this.#temperature;
  }

  /** Attaches a light sensor reading `lux` (undefined: no light sensor on the bus). */
  setLight(lux: number | undefined): void {
    if (lux !== undefined && (!Number.isFinite(lux) || lux < 0))
      throw new RangeError(`light must be lux >= 0, got ${lux}`);
    this.#light = lux;
  }

  light(): number | undefined {
    return this.#light;
  }

  /** Attaches an environmental sensor (BME280) with these readings; undefined removes it. */
  setEnvironment(reading: EnvironmentReading | undefined): void {
    this.#environment = reading === undefined ? undefined : { ...reading };
  }

  environment(): EnvironmentReading | undefined {
    return this.#environment;
  }

  setCharging(charging: boolean): void {
    if (charging === this.#charging) return;
    this.#charging = charging;
    this.#emit({ kind: "charging", charging, at: this.clock.now() });
  }

  charging(): boolean {
    return this.#charging;
  }

  /** Attaches or detaches a Mojo power monitor between the supply and the module. */
  setMojo(attached: boolean): void {
    this.#mojo = attached;
  }

  mojo(): boolean {
    return this.#mojo;
  }

  /**
   * The towers the module hears, serving first; undefined goes back to the default: one tower of
   * the ITU test network (MCC 001, MNC 01) per 0.02° grid cell around the module's position.
   */
  setTowers(towers: readonly CellTower[] | undefined): void {
    this.#towers = towers === undefined ? undefined : towers.map((t) => ({ ...t }));
  }

  towers(): readonly CellTower[] {
    if (this.#towers) return this.#towers;
    const here = this.position();
    if (!here) return [];
    const row = Math.floor(here.lat / TOWER_GRID);
    const col = Math.floor(here.lon / TOWER_GRID);
    const tower = (r: number, c: number, rssi: number): CellTower => ({
      mcc: 1,
      mnc: 1,
      lac: (((r >> 4) * 977 + (c >> 4)) & 0xfffe) + 1,
      cid: ((r * 92821 + c * 68917) >>> 0) % 268_435_456,
      lat: (r + 0.5) * TOWER_GRID,
      lon: (c + 0.5) * TOWER_GRID,
      rssi,
      rat: "lte",
    });
    return [tower(row, col, -71), tower(row, col + 1, -89), tower(row + 1, col, -97)];
  }

  onEvent(listener: (event: WorldEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Stops the world's own timer (track playback). */
  dispose(): void {
    this.#stopPlayback();
  }

  // --- internals -------------------------------------------------------------------------------

  #emit(event: WorldEvent): void {
    for (const listener of [...this.#listeners]) listener(event);
  }

  #offset(p: Playback): number {
    const elapsed = p.from + (this.clock.now() - p.startedAt) * p.timeScale;
    const duration = p.track.durationMs;
    if (p.loop && duration > 0) return elapsed % duration;
    return Math.min(elapsed, duration);
  }

  #stopPlayback(): void {
    if (this.#trackTimer) this.clock.clearTimer(this.#trackTimer);
    this.#trackTimer = undefined;
    this.#playback = undefined;
    this.#trackMoving = false;
  }

  /** Re-reads the track's state now and sets a timer for its next change (under way / parked). */
  #followTrack(): void {
    if (this.#trackTimer) this.clock.clearTimer(this.#trackTimer);
    this.#trackTimer = undefined;
    const p = this.#playback;
    if (!p) return;
    const track = p.track;
    const offset = this.#offset(p);
    const ended = track.durationMs === 0 || (!p.loop && offset >= track.durationMs);
    const index = track.legAt(offset);
    this.#trackMoving = !ended && track.legSpeed(index) >= PARKED_SPEED;
    this.#motionChanged();
    if (ended) return;
    // The next point where the leg speed crosses the parked threshold, or the end of the track.
    let next = index + 1;
    while (next < track.length - 1 && track.legSpeed(next) >= PARKED_SPEED === this.#trackMoving) next++;
    const target = track.point(Math.min(next, track.length - 1)).offset;
    const untilMs = Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil((target - offset) / p.timeScale)));
    this.#trackTimer = this.clock.setTimer(() => {
      this.#trackTimer = undefined;
      const now = this.clock.now();
      const elapsed = p.from + (now - p.startedAt) * p.timeScale;
      if (p.loop && elapsed >= track.durationMs) {
        // The next lap starts where this one ended.
        this.#playback = { ...p, startedAt: now, from: elapsed % track.durationMs };
      }
      this.#followTrack();
    }, untilMs);
  }

  #rateNow(): number {
    if (this.#override) return this.#override.rate;
    return this.#trackMoving ? DEFAULT_MOTION_RATE : 0;
  }

  /** Records the motion rate from now on, and tells listeners when moving starts or stops. */
  #motionChanged(): void {
    const now = this.clock.now();
    const rate = this.#rateNow();
    const last = this.#segments[this.#segments.length - 1]!;
    if (rate === last.rate) return;
    const base = last.base + (Math.max(now, last.at) - last.at) * (last.rate / 60_000);
    if (last.at === now) this.#segments[this.#segments.length - 1] = { at: now, rate, base: last.base };
    else this.#segments.push({ at: now, rate, base });
    if (this.#segments.length > MAX_HISTORY) this.#segments.shift();
    if (rate > 0 !== last.rate > 0) this.#emit({ kind: "motion", moving: rate > 0, at: now });
  }

  /** Motion events up to and including time `t`. */
  #cumulative(t: number): number {
    const segs = this.#segments;
    let lo = 0;
    let hi = segs.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (segs[mid]!.at <= t) lo = mid;
      else hi = mid - 1;
    }
    const s = segs[lo]!;
    const rated = Math.floor(s.base + (Math.max(t, s.at) - s.at) * (s.rate / 60_000) + 1e-9);
    return rated + this.#shakesUpTo(t);
  }

  #shakesUpTo(t: number): number {
    const shakes = this.#shakes;
    let lo = 0;
    let hi = shakes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (shakes[mid]!.at <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo === 0 ? this.#shakeBase : shakes[lo - 1]!.total;
  }
}

function checkPoint(point: GeoPoint): GeoPoint {
  if (!isLatitude(point.lat)) throw new RangeError(`latitude must be in -90..90, got ${point.lat}`);
  if (!isLongitude(point.lon)) throw new RangeError(`longitude must be in -180..180, got ${point.lon}`);
  if (point.alt !== undefined && !Number.isFinite(point.alt))
    throw new RangeError(`altitude must be metres, got ${point.alt}`);
  return point.alt === undefined ? { lat: point.lat, lon: point.lon } : { ...point };
}
