import {
  bearingDegrees,
  distanceMeters,
  interpolate,
  isLatitude,
  isLongitude,
  type GeoPoint,
} from "./geo.js";
import { TrackParseError } from "./TrackParseError.js";

/** One recorded position, as a GPX or NMEA file gives it. */
export interface TrackPoint extends GeoPoint {
  /** Epoch milliseconds of the recording; a track has times on every point or on none. */
  readonly time?: number;
  /** Speed over ground the receiver reported, m/s (NMEA RMC); computed from the legs otherwise. */
  readonly speed?: number;
  /** Course over ground the receiver reported, degrees from true north. */
  readonly course?: number;
  /** Horizontal dilution of precision the receiver reported (NMEA GGA). */
  readonly dop?: number;
  /** Satellites used for the fix (NMEA GGA). */
  readonly satellites?: number;
}

/** Where a track is at some moment of its playback. */
export interface TrackState extends GeoPoint {
  /** Ground speed, m/s (0 when parked or past the end). */
  readonly speed: number;
  /** Course over ground, degrees in [0, 360). */
  readonly course: number;
  readonly dop?: number;
  readonly satellites?: number;
  /** Index of the point the current leg starts at. */
  readonly index: number;
}

interface PlacedPoint extends TrackPoint {
  /** Milliseconds from the track's first point. */
  readonly offset: number;
}

export interface TrackOptions {
  /**
   * Speed in m/s at which to travel a track whose points carry no times (a route drawn on a
   * map). Required for such a track; ignored when the points have times.
   */
  readonly speed?: number;
}

/** Below this ground speed (m/s) a track is parked: GPS jitter, not travel. */
export const PARKED_SPEED = 0.3;

/**
 * A recorded path to play on the module clock: points with times (relative to the first point),
 * positions interpolated between them. Built from a GPX or NMEA file, or from points a scenario
 * writes; checked once here, so playback never meets a bad point.
 */
export class Track {
  readonly #points: readonly PlacedPoint[];

  private constructor(points: readonly PlacedPoint[]) {
    this.#points = points;
  }

  /** The track's points, each with its time from the start (what `fromPoints` rebuilds it from). */
  toPoints(): TrackPoint[] {
    return this.#points.map(({ offset, ...point }) => ({ ...point, time: offset }));
  }

  static fromPoints(points: readonly TrackPoint[], options: TrackOptions = {}): Track {
    if (points.length === 0) throw new TrackParseError("the track has no points");
    points.forEach((p, i) => {
      if (!isLatitude(p.lat))
        throw new TrackParseError(`point ${i + 1}: latitude ${p.lat} is not in -90..90`);
      if (!isLongitude(p.lon))
        throw new TrackParseError(`point ${i + 1}: longitude ${p.lon} is not in -180..180`);
      if (p.alt !== undefined && !Number.isFinite(p.alt))
        throw new TrackParseError(`point ${i + 1}: altitude ${p.alt} is not a number`);
      if (p.time !== undefined && !Number.isFinite(p.time))
        throw new TrackParseError(`point ${i + 1}: time ${p.time} is not a time`);
    });
    const timed = points.filter((p) => p.time !== undefined).length;
    if (timed !== 0 && timed !== points.length)
      throw new TrackParseError(
        `${timed} of the ${points.length} points have a time: give every point a time, or none and a speed`,
      );
    if (timed) {
      const start = points[0]!.time!;
      const placed: PlacedPoint[] = [];
      for (const [i, p] of points.entries()) {
        const previous = points[i - 1];
        if (previous && p.time! < previous.time!)
          throw new TrackParseError(`point ${i + 1}: its time is earlier than the point before it`);
        placed.push({ ...p, offset: p.time! - start });
      }
      return new Track(placed);
    }
    const speed = options.speed;
    if (speed === undefined || !Number.isFinite(speed) || speed <= 0)
      throw new TrackParseError("the track's points have no times: give a speed (m/s) to travel it at");
    let offset = 0;
    const placed: PlacedPoint[] = points.map((p, i) => {
      if (i > 0) offset += (distanceMeters(points[i - 1]!, p) / speed) * 1000;
      return { ...p, offset };
    });
    return new Track(placed);
  }

  /** How long the track lasts, ms. */
  get durationMs(): number {
    return this.#points[this.#points.length - 1]!.offset;
  }

  get length(): number {
    return this.#points.length;
  }

  /** Total length of the path, metres. */
  get distanceMeters(): number {
    let total = 0;
    for (let i = 1; i < this.#points.length; i++)
      total += distanceMeters(this.#points[i - 1]!, this.#points[i]!);
    return total;
  }

  point(index: number): TrackPoint & { readonly offset: number } {
    const p = this.#points[index];
    if (!p) throw new RangeError(`no point ${index} in a track of ${this.#points.length}`);
    return p;
  }

  /** Index of the leg (its first point) containing `offset` ms; the last point past the end. */
  legAt(offset: number): number {
    const pts = this.#points;
    if (offset <= 0) return 0;
    if (offset >= this.durationMs) return pts.length - 1;
    let lo = 0;
    let hi = pts.length - 1;
    // Last point whose offset is <= offset (points with equal offsets: the later one).
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (pts[mid]!.offset <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Speed of the leg starting at point `index`, m/s (0 for the last point and instant jumps). */
  legSpeed(index: number): number {
    const a = this.#points[index]!;
    const b = this.#points[index + 1];
    if (!b) return 0;
    if (a.speed !== undefined) return a.speed;
    const ms = b.offset - a.offset;
    return ms > 0 ? distanceMeters(a, b) / (ms / 1000) : 0;
  }

  /** Where the track is `offset` ms after its start (held at the ends). */
  stateAt(offset: number): TrackState {
    const pts = this.#points;
    const index = this.legAt(offset);
    const a = pts[index]!;
    const b = pts[index + 1];
    if (!b || offset >= this.durationMs) {
      const last = pts[pts.length - 1]!;
      return {
        ...position(last),
        speed: 0,
        course: last.course ?? 0,
        ...quality(last),
        index: pts.length - 1,
      };
    }
    const span = b.offset - a.offset;
    const f = span > 0 ? Math.min(1, Math.max(0, (offset - a.offset) / span)) : 0;
    const here = interpolate(a, b, f);
    const speed = this.legSpeed(index);
    const course = a.course ?? (distanceMeters(a, b) > 0 ? bearingDegrees(a, b) : 0);
    return { ...here, speed, course, ...quality(a), index };
  }
}

function position(p: GeoPoint): GeoPoint {
  return p.alt === undefined ? { lat: p.lat, lon: p.lon } : { lat: p.lat, lon: p.lon, alt: p.alt };
}

function quality(p: TrackPoint): { dop?: number; satellites?: number } {
  const q: { dop?: number; satellites?: number } = {};
  if (p.dop !== undefined) q.dop = p.dop;
  if (p.satellites !== undefined) q.satellites = p.satellites;
  return q;
}
