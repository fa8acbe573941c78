import type { Clock } from "../../core/Clock.js";
import type { PowerSource } from "../PowerSource.js";

/** The supply as it was from `at` (module clock ms) until the next point. */
interface SupplyPoint {
  readonly at: number;
  readonly volts: number;
  readonly usb: boolean;
}

/** Statistics of hourly readings over a window (volts already offset by the caller's calibration). */
export interface SupplyStats {
  readonly average: number;
  readonly min: number;
  readonly max: number;
  /** Milliseconds of supply history behind the figures (time off USB, inside the window). */
  readonly span: number;
}

export interface TrendOptions {
  /** Added to every reading before filtering (calibration). */
  readonly offset?: number;
  /** Hourly readings below / above these (after offset) are ignored. */
  readonly min?: number;
  readonly max?: number;
}

const HOUR_MS = 3_600_000;
/** Exact history kept for the present reading's average. */
export const RECENT_MS = 15 * 60_000;
/** More changes than this within the recent window are thinned (a supply scripted in ms steps). */
const MAX_RECENT_POINTS = 4096;
/** Hourly readings kept: the 720-hour analysis window plus the hour of moving average before it. */
export const KEEP_HOURS = 722;

/**
 * The supply's history since boot, on the module clock. The power port is piecewise constant
 * between changes, which the port reports (or the module notices when a request reads it), so
 * averages are exact without any sampling timer. Two tiers: the exact changes of the last 15
 * minutes (the reported `value`), and one reading per hour since boot (trend analysis, as the
 * module analyses hourly data) in a fixed ring of 722 hours: memory stays bounded however often
 * the supply changes and however long the module runs. Time on USB power does not count in
 * hourly readings (trends are not updated on USB). History lives in RAM: a restart begins anew.
 */
export class VoltageMonitor {
  readonly #clock: Clock;
  readonly #power: PowerSource;
  readonly #onUsbChange: ((usb: boolean, at: number, volts: number) => void) | undefined;
  readonly #unsubscribe: (() => void) | undefined;
  #points: SupplyPoint[] = [];
  /** Hourly readings include the supply up to this time. */
  #accumulatedTo: number;
  /** The hour being filled: index since boot, volt-milliseconds and milliseconds off USB. */
  #open = { hour: 0, weighted: 0, covered: 0 };
  /** Closed hours [first, next): weighted and covered per hour, at `2 * (hour % KEEP_HOURS)`. */
  #closed: Float64Array | undefined;
  #first = 0;
  #next = 0;
  /** Module clock ms when this history began (the boot). */
  readonly startedAt: number;

  constructor(
    clock: Clock,
    power: PowerSource,
    onUsbChange?: (usb: boolean, at: number, volts: number) => void,
  ) {
    this.#clock = clock;
    this.#power = power;
    this.#onUsbChange = onUsbChange;
    this.startedAt = this.#accumulatedTo = clock.now();
    this.#points.push({ at: this.startedAt, volts: power.voltage(), usb: power.usb() });
    this.#unsubscribe = power.onChange?.(() => this.observe());
  }

  /** Stops following the port (module shutdown or restart). */
  dispose(): void {
    this.#unsubscribe?.();
  }

  /** How much history is held: exact recent points and hourly readings. */
  get retained(): { points: number; hours: number } {
    this.observe();
    return { points: this.#points.length, hours: this.#next - this.#first + 1 };
  }

  /** Brings the history up to now and records the port's present state if it changed. */
  observe(): void {
    const now = this.#clock.now();
    const last = this.#points[this.#points.length - 1]!;
    this.#accumulate(now, last);
    const volts = this.#power.voltage();
    const usb = this.#power.usb();
    if (last.volts === volts && last.usb === usb) return;
    if (last.at === now) this.#points[this.#points.length - 1] = { at: now, volts, usb };
    else this.#points.push({ at: now, volts, usb });
    this.#trim(now);
    if (last.usb !== usb) this.#onUsbChange?.(usb, now, volts);
  }

  /** The port's present state. */
  now(): { volts: number; usb: boolean } {
    this.observe();
    const last = this.#points[this.#points.length - 1]!;
    return { volts: last.volts, usb: last.usb };
  }

  /** Exact time-weighted average over the last `ms` (at most 15 minutes), USB time included. */
  recentAverage(ms: number): number {
    this.observe();
    const end = this.#clock.now();
    const start = Math.max(end - Math.min(ms, RECENT_MS), this.#points[0]!.at);
    let weighted = 0;
    for (let i = 0; i < this.#points.length; i++) {
      const point = this.#points[i]!;
      const length = Math.min(this.#points[i + 1]?.at ?? end, end) - Math.max(point.at, start);
      if (length > 0) weighted += point.volts * length;
    }
    // A zero-length window (just booted, or the clock stepped back): the present reading.
    return end > start ? weighted / (end - start) : this.#points[this.#points.length - 1]!.volts;
  }

  /**
   * Hourly readings overlapping [from, to] (module clock ms): their average weighted by the time
   * they cover inside the window, and the lowest and highest reading. Undefined without any.
   */
  trend(from: number, to: number, options: TrendOptions = {}): SupplyStats | undefined {
    this.observe();
    const offset = options.offset ?? 0;
    const low = options.min ?? -Infinity;
    const high = options.max ?? Infinity;
    const base = this.startedAt;
    let weightedSum = 0;
    let weights = 0;
    let min = Infinity;
    let max = -Infinity;
    // One reading per hour; plain loop over the ring (this runs for every card.voltage).
    const add = (start: number, end: number, weighted: number, covered: number) => {
      const overlap = Math.min(end, to) - Math.max(start, from);
      if (overlap <= 0 || covered <= 0 || end <= start) return;
      const reading = weighted / covered + offset;
      if (reading < low || reading > high) return;
      const weight = (covered * overlap) / (end - start);
      weightedSum += reading * weight;
      weights += weight;
      if (reading < min) min = reading;
      if (reading > max) max = reading;
    };
    const closed = this.#closed;
    if (closed) {
      const firstHour = Math.max(this.#first, Math.floor((from - base) / HOUR_MS));
      const endHour = Math.min(this.#next, Math.floor((to - base) / HOUR_MS) + 1);
      for (let hour = firstHour; hour < endHour; hour++) {
        const slot = 2 * (hour % KEEP_HOURS);
        const start = base + hour * HOUR_MS;
        add(start, start + HOUR_MS, closed[slot]!, closed[slot + 1]!);
      }
    }
    const open = this.#open;
    add(base + open.hour * HOUR_MS, this.#accumulatedTo, open.weighted, open.covered);
    return weights > 0 ? { average: weightedSum / weights, min, max, span: weights } : undefined;
  }

  /** Adds the supply `point` held from the last accumulation until `until` to the hourly readings. */
  #accumulate(until: number, point: SupplyPoint): void {
    let at = this.#accumulatedTo;
    while (at < until) {
      const hour = Math.floor((at - this.startedAt) / HOUR_MS);
      if (hour > this.#open.hour) this.#closeOpenHour(hour);
      const end = Math.min(until, this.startedAt + (hour + 1) * HOUR_MS);
      if (!point.usb) {
        this.#open.weighted += point.volts * (end - at);
        this.#open.covered += end - at;
      }
      at = end;
    }
    this.#accumulatedTo = Math.max(this.#accumulatedTo, until);
  }

  #closeOpenHour(nextHour: number): void {
    const { hour, weighted, covered } = this.#open;
    // Hours skipped entirely (nothing observed for a while) hold the steady supply; they are
    // filled by #accumulate one hour at a time, so `hour` is always `#next` here.
    const slot = 2 * (hour % KEEP_HOURS);
    // The ring grows with the hours seen (a day of a fleet's module keeps 48 numbers, not 1,444).
    if (!this.#closed || slot + 2 > this.#closed.length) {
      const grown = new Float64Array(
        Math.min(2 * KEEP_HOURS, Math.max(slot + 2, 48, 2 * (this.#closed?.length ?? 0))),
      );
      if (this.#closed) grown.set(this.#closed);
      this.#closed = grown;
    }
    this.#closed[slot] = weighted;
    this.#closed[slot + 1] = covered;
    this.#next = hour + 1;
    if (this.#next - this.#first > KEEP_HOURS) this.#first = this.#next - KEEP_HOURS;
    this.#open = { hour: nextHour, weighted: 0, covered: 0 };
  }

  #trim(now: number): void {
    const cutoff = now - RECENT_MS;
    let drop = 0;
    while (drop + 1 < this.#points.length && this.#points[drop + 1]!.at <= cutoff) drop++;
    // A supply changing faster than this can be kept is thinned from the old end.
    drop = Math.max(drop, this.#points.length - MAX_RECENT_POINTS);
    if (drop > 0) this.#points = this.#points.slice(drop);
  }
}
