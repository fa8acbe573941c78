import { effectiveMode, hubSettings } from "../config/HubConfig.js";
import type { ModuleCore } from "../ModuleCore.js";
import type { Fix, SensorPeers } from "./SensorPeers.js";
import { distanceMeters } from "../world/geo.js";
import { epochAt } from "./moduleTime.js";
import { SensorTimer } from "./SensorTimer.js";
import {
  readSettings,
  SENSOR_KEYS,
  type LocationMode,
  type LocationSettings,
  type StoredFix,
} from "./SensorSettings.js";
import { periodFor } from "./voltageVariableSetting.js";
import { inBackground } from "../inBackground.js";

/** One location the module knows. */

/** What the tracker hears from the GPS (each call runs inside module.exclusive). */
export interface GnssListener {
  /**
   * A new fix, taken because the module moved (`moved`), or the first one after the mode was set
   * or the receiver came back (not movement: no journey starts with it).
   */
  fix(fix: Fix, moved: boolean): void;
  /** A sampling period passed without motion: the module has stopped. */
  still(at: number): void;
}

type Receiver =
  | { readonly state: "off" }
  | { readonly state: "searching"; readonly since: number; readonly hot: boolean; readonly moved: boolean }
  | { readonly state: "tracking"; readonly since: number; readonly searched: number };

/** Default sampling period of `periodic` mode, seconds (ours: the vendor names none). */
export const DEFAULT_PERIODIC_SECONDS = 300;
/** How often `continuous` mode checks for movement when no `seconds` is set (ours). */
export const DEFAULT_CONTINUOUS_SECONDS = 60;
/** Below this period the receiver stays on during sustained movement, and journeys are tracked. */
export const SUSTAINED_BELOW_SECONDS = 300;
/** A periodic search without a fix gives up after this long (ours), counting one failure. */
export const SEARCH_TIMEOUT_SECONDS = 180;
/** A receiver that had a fix this recently starts hot. */
const HOT_START_MS = 2 * 3_600_000;
/** Continuous mode updates its fix at most this often. */
const FIX_INTERVAL_MS = 5_000;

/**
 * The module's GPS receiver and its sampling schedule (`card.location.mode`), on the module clock.
 *
 * - `periodic`: every `seconds` (or `vseconds`) the module checks the accelerometer; if it moved
 *   by more than `threshold` events (or this is the first sample) it powers the receiver, which
 *   finds a fix after the world's cold or hot time-to-fix, or gives up after three minutes without
 *   sky. With a period under five minutes the receiver stays on while movement lasts.
 * - `continuous`: the receiver stays on; its fix follows the world every five seconds, and
 *   movement is checked every `seconds` (default 60) for the tracker.
 * - `fixed`: no receiver; the location is the one given.
 * - `off`: no receiver; the last fix is kept.
 */
export class Gnss {
  readonly #module: ModuleCore;
  readonly #listener: GnssListener;
  #receiver: Receiver = { state: "off" };
  readonly #tick: SensorTimer;
  readonly #search: SensorTimer;
  /** The motion total at the last sampling tick. */
  #lastTotal = 0;
  #last: Fix | undefined;
  #failures = 0;
  /** The hub mode turned the receiver off (`#hubAllows`): the next allowed tick searches. */
  #pausedByHub = false;
  #disposed = false;
  #unsubscribe: (() => void) | undefined;

  readonly #peers: SensorPeers;

  constructor(module: ModuleCore, peers: SensorPeers, listener: GnssListener) {
    this.#module = module;
    this.#peers = peers;
    this.#listener = listener;
    this.#tick = new SensorTimer(module.clock);
    this.#search = new SensorTimer(module.clock);
    const stored = module.notebox.config<StoredFix>(SENSOR_KEYS.lastFix);
    if (stored) this.#last = { ...stored, source: "gps" };
  }

  /** Starts following the settings in flash (boot). */
  start(): void {
    this.#unsubscribe = this.#module.world.onEvent((event) => {
      if (event.kind === "gps" || event.kind === "position") this.#skyChanged();
    });
    this.reconfigure();
  }

  dispose(): void {
    this.#disposed = true;
    this.#unsubscribe?.();
    this.#cancel();
  }

  get settings(): LocationSettings {
    return readSettings<LocationSettings>(this.#module, SENSOR_KEYS.location);
  }

  get mode(): LocationMode {
    return this.settings.mode ?? "off";
  }

  /** Sampling period in seconds (periodic: `vseconds` by supply state, else `seconds`). */
  get periodSeconds(): number {
    const s = this.settings;
    if (s.mode === "continuous") return s.seconds ?? DEFAULT_CONTINUOUS_SECONDS;
    const variable = periodFor(this.#module, s.vseconds);
    return Math.max(5, variable ?? s.seconds ?? DEFAULT_PERIODIC_SECONDS);
  }

  /** Journeys are tracked in continuous mode, and in periodic mode under five minutes. */
  get journeys(): boolean {
    const mode = this.mode;
    return mode === "continuous" || (mode === "periodic" && this.periodSeconds < SUSTAINED_BELOW_SECONDS);
  }

  get receiver(): Receiver["state"] {
    return this.#receiver.state;
  }

  /** Consecutive searches that ended without a fix. */
  get failures(): number {
    return this.#failures;
  }

  /** The latest location: in continuous mode the receiver's present fix, else the last one. */
  current(): Fix | undefined {
    const s = this.settings;
    if (s.mode === "fixed" && s.fixed) return this.#last?.source === "fixed" ? this.#last : undefined;
    if (this.#receiver.state === "tracking" && s.mode === "continuous") {
      const fresh = this.#take();
      if (fresh) return fresh;
    }
    return this.#last;
  }

  /** The latest location as a note carries it, if the module knows one. */
  noteWhere(): { lat: number; lon: number; time: number } | undefined {
    const fix = this.current();
    return fix ? { lat: fix.lat, lon: fix.lon, time: fix.time } : undefined;
  }

  /** Forgets the last location (`delete:true`); a fixed location stays what the settings say. */
  forget(): void {
    this.#last = undefined;
    this.#module.notebox.setConfig(SENSOR_KEYS.lastFix, undefined);
    if (this.mode === "fixed") this.#applyFixed();
  }

  /** Applies the settings now (after `card.location.mode`, and at boot). */
  reconfigure(): void {
    this.#cancel();
    this.#receiver = { state: "off" };
    const mode = this.mode;
    if (mode === "fixed") this.#applyFixed();
    else if (this.#last?.source === "fixed") {
      // Leaving fixed mode: the last location is the last real fix again.
      const stored = this.#module.notebox.config<StoredFix>(SENSOR_KEYS.lastFix);
      this.#last = stored ? { ...stored, source: "gps" } : undefined;
    }
    if (mode !== "periodic" && mode !== "continuous") return;
    if (!this.#module.variant.gps) return;
    this.#lastTotal = this.#module.world.motionTotal();
    if (mode === "continuous") this.#startSearch();
    this.#schedule(0, true);
  }

  /** `card.location` `status`, worded like the real module's. */
  status(): string {
    const r = this.#receiver;
    const gps = this.#module.world.gps();
    const now = this.#module.clock.now();
    if (r.state === "searching") {
      const seconds = Math.round((now - r.since) / 1000);
      const sky = gps.signal && this.#module.world.position() !== undefined;
      return sky
        ? `GPS search (${seconds} sec, ${gps.snr - 4}/${gps.snr} dB SNR, 0/${gps.satellites} sats) {gps-active} {gps-signal} {gps-sats}`
        : `GPS search (${seconds} sec, 0/0 dB SNR, 0/0 sats) {gps-active}`;
    }
    const last = this.#last;
    if (
      (r.state === "tracking" || this.mode === "periodic") &&
      last?.source === "gps" &&
      last.at !== undefined
    ) {
      return `GPS updated (${last.searched ?? 0} sec, ${last.snr ?? gps.snr}dB SNR, ${last.satellites ?? gps.satellites} sats) {gps-active} {gps-signal} {gps-sats} {gps}`;
    }
    return "GPS inactive {gps-inactive}";
  }

  /** Distance from the geofence center to the latest location, metres (undefined without). */
  fenceDistance(fix: Fix | undefined = this.current()): number | undefined {
    const fence = this.settings.fence;
    if (fence?.max === undefined || !fix) return undefined;
    return distanceMeters(fence, fix);
  }

  // --- internals -------------------------------------------------------------------------------

  #cancel(): void {
    this.#tick.clear();
    this.#search.clear();
  }

  #schedule(ms: number, initial = false): void {
    this.#tick.set(ms, () => this.#run(() => this.#sample(initial)));
  }

  /** Runs `task` in the module's exclusive queue, unless this receiver was replaced meanwhile. */
  #run(task: () => void): void {
    inBackground(this.#module, "location task", task, () => this.#disposed);
  }

  /**
   * The hub mode lets the receiver run: hub.set.req.notecard.api.json, `mode`: "The Notecard must
   * be in `periodic` or `continuous` mode to use the onboard GPS module." In `minimum`, `off` and
   * `dfu` (which is `off` for the network) it stays off and takes no fix.
   */
  #hubAllows(): boolean {
    const module = this.#module;
    const mode = effectiveMode(hubSettings(module), module.voltage.now().usb);
    return mode === "periodic" || mode === "continuous";
  }

  /** One sampling tick: did the module move since the last one? */
  #sample(initial: boolean): void {
    const module = this.#module;
    const now = module.clock.now();
    const total = module.world.motionTotal();
    const moved = initial || this.#moved(total - this.#lastTotal);
    this.#lastTotal = total;
    const mode = this.mode;
    const r = this.#receiver;
    if (!this.#hubAllows()) {
      // Not now: the receiver is off until a tick finds the hub mode allowing it again.
      this.#search.clear();
      this.#receiver = { state: "off" };
      this.#pausedByHub = true;
    } else if (this.#pausedByHub) {
      // Allowed again: the first search since, as after the location mode was set.
      this.#pausedByHub = false;
      if (r.state === "off") this.#startSearch();
    } else if (moved) {
      if (r.state === "tracking") this.#deliver(this.#take(r.searched), !initial);
      else if (r.state === "off") this.#startSearch(!initial);
    } else {
      this.#listener.still(now);
      if (mode === "periodic" && r.state === "tracking") this.#receiver = { state: "off" };
    }
    this.#schedule(this.periodSeconds * 1000);
  }

  #moved(events: number): boolean {
    // Without an accelerometer there is nothing to gate on: every period samples.
    if (!this.#peers.motionSensing()) return true;
    return events > (this.settings.threshold ?? 0);
  }

  #startSearch(moved = false): void {
    const now = this.#module.clock.now();
    const last = this.#last;
    const hot = last?.at !== undefined && now - last.at < HOT_START_MS;
    this.#receiver = { state: "searching", since: now, hot, moved };
    this.#planSearch();
  }

  /** Sets the search timer: a fix after the time-to-fix when the sky allows, else the timeout. */
  #planSearch(): void {
    const r = this.#receiver;
    if (r.state !== "searching") return;
    const world = this.#module.world;
    const gps = world.gps();
    const now = this.#module.clock.now();
    if (gps.signal && world.position()) {
      const fixAt = r.since + (r.hot ? gps.hotFixSeconds : gps.coldFixSeconds) * 1000;
      this.#search.set(fixAt - now, () => this.#run(() => this.#acquired()));
    } else {
      const giveUpAt = r.since + SEARCH_TIMEOUT_SECONDS * 1000;
      this.#search.set(giveUpAt - now, () => this.#run(() => this.#failed()));
    }
  }

  #skyChanged(): void {
    const r = this.#receiver;
    if (r.state === "searching") this.#planSearch();
    if (r.state === "tracking") {
      const world = this.#module.world;
      if (!world.gps().signal || !world.position()) this.#startSearch();
    }
  }

  #acquired(): void {
    const r = this.#receiver;
    if (r.state !== "searching") return;
    if (!this.#hubAllows()) {
      this.#receiver = { state: "off" };
      this.#pausedByHub = true;
      return;
    }
    const now = this.#module.clock.now();
    const searched = Math.round((now - r.since) / 1000);
    const keepOn =
      this.mode === "continuous" ||
      (this.mode === "periodic" && this.periodSeconds < SUSTAINED_BELOW_SECONDS);
    this.#receiver = keepOn ? { state: "tracking", since: now, searched } : { state: "off" };
    this.#failures = 0;
    const fix = this.#take(searched);
    if (fix) this.#deliver(fix, r.moved);
  }

  #failed(): void {
    if (this.#receiver.state !== "searching") return;
    this.#failures++;
    this.#module.log.debug("GPS search gave up without a fix", { failures: this.#failures });
    if (this.mode === "continuous") this.#startSearch();
    else this.#receiver = { state: "off" };
  }

  /** A fix of where the world has the module now (continuous: as of the last 5-second update). */
  #take(searched = 0): Fix | undefined {
    const module = this.#module;
    const world = module.world;
    const here = world.position();
    if (!here) return undefined;
    const gps = world.gps();
    const r = this.#receiver;
    const now = module.clock.now();
    const at = r.state === "tracking" ? now - ((now - r.since) % FIX_INTERVAL_MS) : now;
    // GPS time is the world's true time: the clock's epoch milliseconds.
    const fix: Fix = {
      lat: here.lat,
      lon: here.lon,
      ...(here.alt === undefined ? {} : { alt: here.alt }),
      time: Math.floor(at / 1000),
      at,
      dop: here.dop ?? gps.dop,
      satellites: here.satellites ?? gps.satellites,
      snr: gps.snr,
      searched,
      source: "gps",
    };
    return fix;
  }

  /** Records a new fix and hands it to the tracker (inside the exclusive queue). */
  #deliver(fix: Fix | undefined, moved: boolean): void {
    if (!fix) return;
    const module = this.#module;
    this.#last = fix;
    const stored: StoredFix = {
      lat: fix.lat,
      lon: fix.lon,
      ...(fix.alt === undefined ? {} : { alt: fix.alt }),
      time: fix.time,
      ...(fix.dop === undefined ? {} : { dop: fix.dop }),
    };
    module.notebox.setConfig(SENSOR_KEYS.lastFix, stored);
    // A module that never synced learns the time from its first fix.
    if (module.time() === undefined) module.setTime(fix.time);
    module.attn.trigger("location");
    this.#listener.fix(fix, moved);
  }

  #applyFixed(): void {
    const fixed = this.settings.fixed;
    if (!fixed) return;
    const module = this.#module;
    const at = module.clock.now();
    this.#last = { lat: fixed.lat, lon: fixed.lon, time: epochAt(module, at) ?? 0, at, source: "fixed" };
  }
}
