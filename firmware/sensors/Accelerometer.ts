import type { ModuleCore } from "../ModuleCore.js";
import type { SensorPeers } from "./SensorPeers.js";
import type { WorldEvent } from "../world/Surroundings.js";
import { epochAt } from "./moduleTime.js";
import {
  readSettings,
  SENSOR_KEYS,
  type MotionSettings,
  type MotionSyncSettings,
  type MotionTrackSettings,
} from "./SensorSettings.js";
import { SensorTimer } from "./SensorTimer.js";
import type { JsonObject } from "../../core/json.js";
import { inBackground } from "../inBackground.js";

/** Seconds per bucket of movements when `card.motion.mode` sets none (the schema's sample reply). */
export const DEFAULT_BUCKET_SECONDS = 5;
export const DEFAULT_MOTION_FILE = "_motion.qo";
/** Defaults of `card.motion.track` and `card.motion.sync` (ours: the vendor names none). */
export const MOTION_TRACK_DEFAULTS = { minutes: 5, count: 5, threshold: 1 } as const;
export const MOTION_SYNC_DEFAULTS = { minutes: 5, count: 5, threshold: 1 } as const;
/** Longest `card.motion minutes` window answered (a day), and most buckets in `movements`. */
export const MAX_MOVEMENT_MINUTES = 1440;
export const MAX_MOVEMENT_BUCKETS = 1024;
/** Orientation changes remembered between two `card.motion` requests. */
const MAX_TURNS = 32;

/**
 * The module's accelerometer: motion counting and orientation for `card.motion`, motion capture
 * in `_motion.qo` (`card.motion.track`), motion-triggered syncs (`card.motion.sync`), and the
 * `motion` / `motionchange` ATTN events. Counts come from the world over any interval, so no
 * sampling timer runs unless capture or sync is on.
 */
export class Accelerometer {
  readonly #module: ModuleCore;
  /** The motion total at the last `card.motion` (it reports "since then"). */
  #lastReadTotal: number;
  readonly #trackTimer: SensorTimer;
  readonly #syncTimer: SensorTimer;
  #lastSync: number | undefined;
  /** An orientation change happened since the last motion-sync check. */
  #turned = false;
  /** Orientations taken and free falls since the last `card.motion`. */
  #turns: string[] = [];
  #fell = false;
  #unsubscribe: (() => void) | undefined;
  #disposed = false;

  readonly #peers: SensorPeers;

  constructor(module: ModuleCore, peers: SensorPeers) {
    this.#peers = peers;
    this.#module = module;
    this.#trackTimer = new SensorTimer(module.clock);
    this.#syncTimer = new SensorTimer(module.clock);
    this.#lastReadTotal = module.world.motionTotal();
  }

  get settings(): MotionSettings {
    return readSettings<MotionSettings>(this.#module, SENSOR_KEYS.motion);
  }

  /** The accelerometer runs (the variant has one, and `card.motion.mode stop:true` did not stop it). */
  get enabled(): boolean {
    return this.#module.variant.accelerometer && !this.settings.stopped;
  }

  get bucketSeconds(): number {
    return this.settings.seconds ?? DEFAULT_BUCKET_SECONDS;
  }

  start(): void {
    this.#unsubscribe = this.#module.world.onEvent((event) => this.#event(event));
    this.reconfigure();
  }

  /** Applies the settings now (after any of the motion requests). */
  reconfigure(): void {
    this.#planTrack();
    this.#planSync();
  }

  dispose(): void {
    this.#disposed = true;
    this.#unsubscribe?.();
    this.#trackTimer.clear();
    this.#syncTimer.clear();
  }

  /** Motion events after `from` up to `to`; none while the accelerometer is off. */
  count(from: number, to: number): number {
    return this.enabled ? this.#module.world.motionCount(from, to) : 0;
  }

  /** A reading of the world's motion total: differences count the events in between. */
  total(): number {
    return this.#module.world.motionTotal();
  }

  /** Events since a `total()` reading; none while the accelerometer is off. */
  since(total: number): number {
    return this.enabled ? Math.max(0, this.#module.world.motionTotal() - total) : 0;
  }

  /** `card.motion`: what happened since the last call, then starts a new "since". */
  read(minutes: number | undefined): JsonObject {
    const module = this.#module;
    const s = this.settings;
    if (!s.started || s.stopped) return {};
    const world = module.world;
    const total = world.motionTotal();
    const count = total - this.#lastReadTotal;
    this.#lastReadTotal = total;
    const changes = this.#turns;
    const fell = this.#fell;
    this.#turns = [];
    this.#fell = false;
    const last = world.lastMotionAt();
    const reply: JsonObject = {
      count,
      status: (changes.length > 0 ? changes : [world.orientation()]).join(","),
      alert: fell,
      motion: last === undefined ? undefined : epochAt(module, last),
    };
    if (s.motion !== undefined && s.motion > 0) reply["mode"] = this.moving() ? "moving" : "stopped";
    if (minutes !== undefined && minutes > 0) {
      reply["movements"] = this.movements(Math.min(minutes, MAX_MOVEMENT_MINUTES));
      reply["seconds"] = this.bucketSeconds;
    }
    return reply;
  }

  /** Moving by `card.motion.mode motion`: the last complete bucket held at least that many events. */
  moving(): boolean {
    const threshold = this.settings.motion ?? 0;
    if (threshold <= 0) return this.#module.world.moving();
    const counts = this.buckets(1);
    return (counts[0] ?? 0) >= threshold;
  }

  /**
   * Events per bucket over the last `n` complete buckets, oldest first. Buckets are aligned to
   * multiples of the bucket length on the module clock.
   */
  buckets(n: number): number[] {
    const size = this.bucketSeconds * 1000;
    const now = this.#module.clock.now();
    const end = now - (now % size);
    const counts: number[] = [];
    for (let i = n; i >= 1; i--) counts.push(this.count(end - i * size, end - (i - 1) * size));
    return counts;
  }

  /** The `movements` string over the last `minutes`: one base-36 digit per bucket, `*` above 35. */
  movements(minutes: number): string {
    const size = this.bucketSeconds * 1000;
    const now = this.#module.clock.now();
    const n = Math.min(MAX_MOVEMENT_BUCKETS, Math.max(1, Math.ceil((minutes * 60_000) / size)));
    // The last bucket is the one in progress.
    const end = now - (now % size) + size;
    let out = "";
    for (let i = n; i >= 1; i--) {
      const from = end - i * size;
      out += digit(this.count(from, Math.min(now, from + size)));
    }
    return out;
  }

  // --- capture and sync ------------------------------------------------------------------------

  #trackSettings(): MotionTrackSettings {
    return readSettings<MotionTrackSettings>(this.#module, SENSOR_KEYS.motionTrack);
  }

  #syncSettings(): MotionSyncSettings {
    return readSettings<MotionSyncSettings>(this.#module, SENSOR_KEYS.motionSync);
  }

  #planTrack(): void {
    this.#trackTimer.clear();
    const s = this.#trackSettings();
    if (!s.on || this.#disposed) return;
    const minutes = s.minutes ?? MOTION_TRACK_DEFAULTS.minutes;
    this.#trackTimer.set(minutes * 60_000, () =>
      this.#run(() => {
        this.#capture(false);
        this.#planTrack();
      }),
    );
  }

  /** Writes a `_motion.qo` note when enough of the last `count` buckets had motion (or `now`). */
  #capture(orientationChanged: boolean): void {
    const s = this.#trackSettings();
    if (!s.on || !this.enabled) return;
    const count = s.count ?? MOTION_TRACK_DEFAULTS.count;
    const threshold = s.threshold ?? MOTION_TRACK_DEFAULTS.threshold;
    const counts = this.buckets(count);
    const active = counts.filter((c) => c > 0).length;
    if (!orientationChanged && active < threshold) return;
    const module = this.#module;
    const total = counts.reduce((a, b) => a + b, 0);
    const body: JsonObject = {
      movements: counts.map(digit).join(""),
      seconds: this.bucketSeconds,
      orientation: module.world.orientation(),
    };
    if (total > 0) body["motion"] = total;
    const fix = this.#peers.currentFix();
    module.notebox.appendToQueue(s.file ?? DEFAULT_MOTION_FILE, {
      body,
      time: module.noteTime(),
      ...(fix ? { where: { lat: fix.lat, lon: fix.lon, time: fix.time } } : {}),
    });
  }

  #planSync(): void {
    this.#syncTimer.clear();
    const s = this.#syncSettings();
    if (!s.on || this.#disposed) return;
    this.#syncTimer.set(this.bucketSeconds * 1000, () =>
      this.#run(() => {
        this.#checkSync();
        this.#planSync();
      }),
    );
  }

  /** Asks for a sync when enough buckets had motion (threshold 0: on an orientation change). */
  #checkSync(): void {
    const s = this.#syncSettings();
    if (!s.on || !this.enabled) return;
    const module = this.#module;
    const now = module.clock.now();
    const minutes = s.minutes ?? MOTION_SYNC_DEFAULTS.minutes;
    if (this.#lastSync !== undefined && now - this.#lastSync < minutes * 60_000) return;
    const threshold = s.threshold ?? MOTION_SYNC_DEFAULTS.threshold;
    let due: boolean;
    if (threshold === 0) {
      due = this.#turned;
      this.#turned = false;
    } else {
      const counts = this.buckets(s.count ?? MOTION_SYNC_DEFAULTS.count);
      due = counts.filter((c) => c > 0).length >= threshold;
    }
    if (!due) return;
    this.#lastSync = now;
    this.#peers.requestSync("motion");
  }

  #event(event: WorldEvent): void {
    const module = this.#module;
    if (!this.enabled || this.#disposed) return;
    if (event.kind === "shake" || (event.kind === "motion" && event.moving)) module.attn.trigger("motion");
    if (event.kind === "motion") module.attn.trigger("motionchange");
    if (event.kind === "freefall") this.#fell = true;
    if (event.kind === "orientation") {
      this.#turned = true;
      this.#turns.push(event.orientation);
      if (this.#turns.length > MAX_TURNS) this.#turns.shift();
      if (this.#trackSettings().now) this.#run(() => this.#capture(true));
    }
  }

  #run(task: () => void): void {
    inBackground(this.#module, "motion task", task, () => this.#disposed);
  }
}

/** One bucket's count as the module writes it: 0-9, A-Z for 10-35, `*` above. */
function digit(count: number): string {
  if (count > 35) return "*";
  return count.toString(36).toUpperCase();
}
