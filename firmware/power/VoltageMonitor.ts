import type { Clock } from "../Clock.js";
import type { PowerSource } from "../PowerSource.js";

/** The supply as it was from `at` (module clock ms) until the next point. */
interface SupplyPoint {
  readonly at: number;
  readonly volts: number;
  readonly usb: boolean;
}

/** Statistics of the supply over a window (volts already offset by the caller's calibration). */
export interface SupplyStats {
  readonly average: number;
  readonly min: number;
  readonly max: number;
  /** Milliseconds of the window that counted. */
  readonly covered: number;
}

export interface StatsOptions {
  /** Added to every reading before filtering (calibration). */
  readonly offset?: number;
  /** Readings below / above these (after offset) are ignored. */
  readonly min?: number;
  readonly max?: number;
  /** Ignore time spent on USB power (trends are not updated on USB). */
  readonly excludeUsb?: boolean;
}

/** Longest history kept: the 720-hour analysis window plus the hour of moving average before it. */
const KEEP_MS = 722 * 3_600_000;

/**
 * The supply's history since boot, on the module clock. The power port is piecewise constant
 * between changes, so recording each change (the port reports them, or the module samples it
 * when a request reads it) gives exact time-weighted averages without any sampling timer, at no
 * cost while nothing changes. History lives in RAM: a restart begins a new one.
 */
export class VoltageMonitor {
  readonly #clock: Clock;
  readonly #power: PowerSource;
  readonly #onUsbChange: ((usb: boolean, at: number, volts: number) => void) | undefined;
  readonly #unsubscribe: (() => void) | undefined;
  readonly #points: SupplyPoint[] = [];
  /** Number of change points held (bounded by the 722 hours kept). */
  get size(): number {
    return this.#points.length;
  }
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
    this.startedAt = clock.now();
    this.#points.push({ at: this.startedAt, volts: power.voltage(), usb: power.usb() });
    this.#unsubscribe = power.onChange?.(() => this.observe());
  }

  /** Stops following the port (module shutdown or restart). */
  dispose(): void {
    this.#unsubscribe?.();
  }

  /** Records the port's present state if it changed. */
  observe(): void {
    const now = this.#clock.now();
    const volts = this.#power.voltage();
    const usb = this.#power.usb();
    const last = this.#points[this.#points.length - 1]!;
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

  /** Time-weighted statistics over [from, to] (module clock ms), clipped to the history. */
  stats(from: number, to: number, options: StatsOptions = {}): SupplyStats | undefined {
    this.observe();
    const offset = options.offset ?? 0;
    const start = Math.max(from, this.startedAt);
    const end = Math.min(to, this.#clock.now());
    let weighted = 0;
    let covered = 0;
    let min = Infinity;
    let max = -Infinity;
    const count = (point: SupplyPoint, length: number) => {
      if (options.excludeUsb && point.usb) return;
      const volts = point.volts + offset;
      if (options.min !== undefined && volts < options.min) return;
      if (options.max !== undefined && volts > options.max) return;
      weighted += volts * length;
      covered += length;
      min = Math.min(min, volts);
      max = Math.max(max, volts);
    };
    if (end <= start) {
      // A zero-length window (just booted, or asked for no time): the reading in effect then.
      if (end < start) return undefined;
      const inEffect = this.#points.filter((p) => p.at <= end).pop();
      if (inEffect) count(inEffect, 0);
    } else {
      for (let i = 0; i < this.#points.length; i++) {
        const point = this.#points[i]!;
        const spanStart = Math.max(point.at, start);
        const spanEnd = Math.min(this.#points[i + 1]?.at ?? end, end);
        if (spanEnd > spanStart) count(point, spanEnd - spanStart);
      }
    }
    if (min === Infinity) return undefined;
    return { average: covered > 0 ? weighted / covered : min, min, max, covered };
  }

  #trim(now: number): void {
    const cutoff = now - KEEP_MS;
    let drop = 0;
    while (drop + 1 < this.#points.length && this.#points[drop + 1]!.at <= cutoff) drop++;
    if (drop > 0) this.#points.splice(0, drop);
  }
}
