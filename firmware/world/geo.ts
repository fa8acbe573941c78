/** A point on the Earth (WGS 84 degrees; altitude in metres above sea level when known). */
export interface GeoPoint {
  readonly lat: number;
  readonly lon: number;
  readonly alt?: number;
}

/** Mean Earth radius (IUGG), in metres: good to about 0.5 % for distances, as GPS trackers use. */
export const EARTH_RADIUS_M = 6_371_008.8;

const toRad = (deg: number): number => (deg * Math.PI) / 180;
const toDeg = (rad: number): number => (rad * 180) / Math.PI;

export function isLatitude(value: number): boolean {
  return Number.isFinite(value) && value >= -90 && value <= 90;
}

export function isLongitude(value: number): boolean {
  return Number.isFinite(value) && value >= -180 && value <= 180;
}

/** Great-circle distance in metres (haversine). */
export function distanceMeters(a: GeoPoint, b: GeoPoint): number {
  const dLat = toRad(b.lat - a.lat);
  const dLon = toRad(b.lon - a.lon);
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(toRad(a.lat)) * Math.cos(toRad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Initial bearing from `a` to `b`, degrees clockwise from true north in [0, 360). */
export function bearingDegrees(a: GeoPoint, b: GeoPoint): number {
  const phi1 = toRad(a.lat);
  const phi2 = toRad(b.lat);
  const dLambda = toRad(b.lon - a.lon);
  const y = Math.sin(dLambda) * Math.cos(phi2);
  const x = Math.cos(phi1) * Math.sin(phi2) - Math.sin(phi1) * Math.cos(phi2) * Math.cos(dLambda);
  const deg = toDeg(Math.atan2(y, x));
  return (deg + 360) % 360;
}

/** The point `meters` from `from` along `bearing` (degrees). */
export function destination(from: GeoPoint, bearing: number, meters: number): GeoPoint {
  const angular = meters / EARTH_RADIUS_M;
  const theta = toRad(bearing);
  const phi1 = toRad(from.lat);
  const lambda1 = toRad(from.lon);
  const phi2 = Math.asin(
    Math.sin(phi1) * Math.cos(angular) + Math.cos(phi1) * Math.sin(angular) * Math.cos(theta),
  );
  const lambda2 =
    lambda1 +
    Math.atan2(
      Math.sin(theta) * Math.sin(angular) * Math.cos(phi1),
      Math.cos(angular) - Math.sin(phi1) * Math.sin(phi2),
    );
  return { lat: toDeg(phi2), lon: normalizeLongitude(toDeg(lambda2)) };
}

export function normalizeLongitude(lon: number): number {
  const wrapped = ((((lon + 180) % 360) + 360) % 360) - 180;
  return wrapped === -180 && lon > 0 ? 180 : wrapped;
}

/**
 * The point a fraction `f` (0..1) of the way from `a` to `b`. Linear in degrees, which is exact
 * enough for the short legs of a recorded track; a leg across the antimeridian goes the short way.
 */
export function interpolate(a: GeoPoint, b: GeoPoint, f: number): GeoPoint {
  let dLon = b.lon - a.lon;
  if (dLon > 180) dLon -= 360;
  if (dLon < -180) dLon += 360;
  const alt = a.alt !== undefined && b.alt !== undefined ? a.alt + (b.alt - a.alt) * f : (a.alt ?? b.alt);
  const point = { lat: a.lat + (b.lat - a.lat) * f, lon: normalizeLongitude(a.lon + dLon * f) };
  return alt === undefined ? point : { ...point, alt };
}
