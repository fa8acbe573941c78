import type { Clock, TimerHandle } from "../core/Clock.js";
import type { SimPowerSource } from "../firmware/PowerSource.js";

/** One point of a discharge curve: ms since the curve started, and the supply's volts then. */
export interface DischargePoint {
  readonly ms: number;
  readonly volts: number;
}

/**
 * A battery's voltage over time: points in time order, linear between them, the last value held
 * after the end. Made from a CSV (`parseDischargeCsv`), a linear model (`linear:4.2-3.3/30d`), or
 * points (`new DischargeCurve([...])`).
 */
export class DischargeCurve {
  readonly points: readonly DischargePoint[];

  constructor(points: readonly DischargePoint[]) {
    if (points.length === 0) throw new Error("a discharge curve needs at least one point");
    let last = -Infinity;
    for (const [i, p] of points.entries()) {
      if (!Number.isFinite(p.ms) || p.ms < 0) throw new Error(`point ${i + 1}: time must be >= 0`);
      if (!Number.isFinite(p.volts) || p.volts < 0) throw new Error(`point ${i + 1}: volts must be >= 0`);
      if (p.ms <= last) throw new Error(`point ${i + 1}: times must increase`);
      last = p.ms;
    }
    this.points = points.map((p) => ({ ms: p.ms, volts: p.volts }));
  }

  /** How long the curve runs, ms (its last point). */
  get durationMs(): number {
    return this.points[this.points.length - 1]!.ms;
  }

  /** The voltage `ms` after the start: the first point's before it, the last one's after the end. */
  voltsAt(ms: number): number {
    const pts = this.points;
    if (ms <= pts[0]!.ms) return pts[0]!.volts;
    for (let i = 1; i < pts.length; i++) {
      const b = pts[i]!;
      if (ms <= b.ms) {
        const a = pts[i - 1]!;
        return a.volts + ((b.volts - a.volts) * (ms - a.ms)) / (b.ms - a.ms);
      }
    }
    return pts[pts.length - 1]!.volts;
  }
}

/** Time units of a discharge CSV's time column and of a linear model's duration. */
export const TIME_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** A duration: a number with a unit of TIME_UNITS (`90s`, `36h`, `30d`); a bare number is seconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*([a-z]*)\s*$/i.exec(text);
  if (!match) throw new Error(`"${text}" is not a time (a number with ms, s, m, h or d)`);
  const unit = match[2]!.toLowerCase() || "s";
  const scale = TIME_UNITS[unit];
  if (scale === undefined) throw new Error(`"${text}": unknown time unit ${unit} (use ms, s, m, h or d)`);
  return Number(match[1]) * scale;
}

function parseVolts(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*v?\s*$/i.exec(text);
  if (!match) throw new Error(`"${text}" is not a voltage (volts, such as 3.7)`);
  return Number(match[1]);
}

/**
 * A CSV of `time,volts` rows: time with a unit (`0`, `30m`, `12h`, `2.5d`; seconds without one),
 * volts as a number (a trailing `V` is allowed). A first row that is not numbers is a header;
 * blank lines and lines starting with `#` are skipped. Times must increase. Errors name the line.
 */
export function parseDischargeCsv(text: string): DischargeCurve {
  const points: DischargePoint[] = [];
  const lines = text.split(/\r?\n/);
  let sawRow = false;
  for (const [index, raw] of lines.entries()) {
    const lineNo = index + 1;
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    const cells = line.split(",").map((c) => c.trim());
    if (!sawRow && cells.length === 2 && cells.every((c) => /^[a-z_ ()]+$/i.test(c))) {
      sawRow = true; // a header row
      continue;
    }
    sawRow = true;
    if (cells.length !== 2) throw new Error(`line ${lineNo}: expected time,volts, got "${line}"`);
    let ms: number;
    let volts: number;
    try {
      ms = parseDuration(cells[0]!);
      volts = parseVolts(cells[1]!);
    } catch (error) {
      throw new Error(`line ${lineNo}: ${(error as Error).message}`, { cause: error });
    }
    const previous = points[points.length - 1];
    if (previous && ms <= previous.ms)
      throw new Error(`line ${lineNo}: times must increase (${cells[0]} is not after the row before)`);
    points.push({ ms, volts });
  }
  if (points.length === 0) throw new Error("no time,volts rows (a discharge CSV needs at least one)");
  return new DischargeCurve(points);
}

/** `linear:FROM-TO/DURATION`, such as `linear:4.2-3.3/30d`: a straight line from FROM to TO volts. */
export function parseLinearDischarge(spec: string): DischargeCurve {
  const match = /^linear:\s*([\d.]+)\s*v?\s*-\s*([\d.]+)\s*v?\s*\/\s*(\S+)\s*$/i.exec(spec);
  if (!match)
    throw new Error(
      `"${spec}" is not a linear model: write linear:FROM-TO/DURATION, e.g. linear:4.2-3.3/30d`,
    );
  const from = parseVolts(match[1]!);
  const to = parseVolts(match[2]!);
  const ms = parseDuration(match[3]!);
  if (!(ms > 0)) throw new Error(`"${spec}": the duration must be more than 0`);
  return new DischargeCurve([
    { ms: 0, volts: from },
    { ms, volts: to },
  ]);
}

/** A curve from the text of `--discharge` or a scenario: `linear:...`, else a CSV's contents. */
export function parseDischarge(text: string): DischargeCurve {
  return text.trim().toLowerCase().startsWith("linear:")
    ? parseLinearDischarge(text.trim())
    : parseDischargeCsv(text);
}

/** A discharge being played; `stop()` leaves the voltage where it is. */
export interface PlayingDischarge {
  stop(): void;
  /** Resolves when the curve reached its end (never, once stopped). */
  readonly done: Promise<void>;
}

/**
 * Plays `curve` on `supply` over `clock`: the voltage is set to the curve's value now, then every
 * `stepMs` (default 15 minutes, the module's averaging window) and at every point of the curve,
 * rounded to millivolts. On a fake clock it advances with the test's time.
 */
export function playDischarge(
  supply: SimPowerSource,
  clock: Clock,
  curve: DischargeCurve,
  options: { stepMs?: number } = {},
): PlayingDischarge {
  const stepMs = options.stepMs ?? 15 * 60_000;
  if (!(stepMs > 0)) throw new Error(`a discharge step is > 0 ms, got ${stepMs}`);
  const start = clock.now();
  let timer: TimerHandle | undefined;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const apply = (ms: number) => {
    supply.volts = Math.round(curve.voltsAt(ms) * 1000) / 1000;
  };
  const tick = () => {
    timer = undefined;
    const at = clock.now() - start;
    apply(at);
    if (at >= curve.durationMs) return finish();
    const nextPoint = curve.points.find((p) => p.ms > at)?.ms ?? curve.durationMs;
    timer = clock.setTimer(tick, Math.min(stepMs, nextPoint - at));
  };
  tick();
  return {
    stop: () => {
      if (timer !== undefined) clock.clearTimer(timer);
      timer = undefined;
    },
    done,
  };
}

/** Where a discharge being played stands. */
export interface DischargeState {
  readonly fromVolts: number;
  readonly toVolts: number;
  readonly durationMs: number;
  /** Time since it started on the module's clock, at most `durationMs`. */
  readonly elapsedMs: number;
  readonly finished: boolean;
}

/**
 * One supply's discharges, one at a time: a new curve replaces the one playing. What
 * `cardsim module --discharge` starts and the control API (`POST /supply` with `discharge`)
 * starts, replaces, stops and reports.
 */
export class DischargePlayer {
  #playing: { curve: DischargeCurve; started: number; handle: PlayingDischarge } | undefined;

  constructor(
    private readonly supply: SimPowerSource,
    private readonly clock: Clock,
    private readonly options: { stepMs?: number } = {},
  ) {}

  /** Plays the curve `text` describes (`linear:FROM-TO/TIME` or CSV rows time,volts) from now, in place of one that plays; throws a one-line mistake. */
  play(text: string): void {
    this.playCurve(parseDischarge(text));
  }

  /** Plays `curve` from now in place of the one playing (`stepMs` as `playDischarge` takes it). */
  playCurve(curve: DischargeCurve, options: { stepMs?: number } = this.options): PlayingDischarge {
    this.stop();
    const handle = playDischarge(this.supply, this.clock, curve, options);
    this.#playing = { curve, started: this.clock.now(), handle };
    return handle;
  }

  /** Stops the curve playing, leaving the voltage where it is. */
  stop(): void {
    this.#playing?.handle.stop();
    this.#playing = undefined;
  }

  /** The curve started last, if one was. */
  state(): DischargeState | undefined {
    const p = this.#playing;
    if (!p) return undefined;
    const { points, durationMs } = p.curve;
    const elapsed = this.clock.now() - p.started;
    return {
      fromVolts: points[0]!.volts,
      toVolts: points[points.length - 1]!.volts,
      durationMs,
      elapsedMs: Math.min(durationMs, elapsed),
      finished: elapsed >= durationMs,
    };
  }
}
