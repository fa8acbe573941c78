import { destination, type GeoPoint } from "../../../../firmware/world/geo.js";

export interface TimedPoint extends GeoPoint {
  /** Epoch ms. */
  readonly time: number;
}

const iso = (ms: number) => new Date(ms).toISOString();

/** A GPX 1.1 document with one track segment. */
export function gpxDocument(points: readonly (GeoPoint & { time?: number })[]): string {
  const pts = points
    .map(
      (p) =>
        `      <trkpt lat="${p.lat.toFixed(7)}" lon="${p.lon.toFixed(7)}">` +
        (p.alt === undefined ? "" : `<ele>${p.alt}</ele>`) +
        (p.time === undefined ? "" : `<time>${iso(p.time)}</time>`) +
        `</trkpt>`,
    )
    .join("\n");
  return `<?xml version="1.0" encoding="UTF-8"?>
<gpx version="1.1" creator="cardsim tests" xmlns="http://www.topografix.com/GPX/1/1">
  <trk><name>test</name>
    <trkseg>
${pts}
    </trkseg>
  </trk>
</gpx>
`;
}

/** An NMEA sentence with its checksum. */
export function nmea(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum ^= body.charCodeAt(i);
  return `$${body}*${sum.toString(16).toUpperCase().padStart(2, "0")}`;
}

function dm(value: number, degreeDigits: number): string {
  const abs = Math.abs(value);
  const deg = Math.floor(abs);
  const min = (abs - deg) * 60;
  return `${String(deg).padStart(degreeDigits, "0")}${min.toFixed(4).padStart(7, "0")}`;
}

/** RMC and GGA sentences for one fix. */
export function nmeaFix(p: TimedPoint, knots = 0, course = 0): string[] {
  const d = new Date(p.time);
  const hhmmss = `${String(d.getUTCHours()).padStart(2, "0")}${String(d.getUTCMinutes()).padStart(2, "0")}${String(d.getUTCSeconds()).padStart(2, "0")}.00`;
  const ddmmyy = `${String(d.getUTCDate()).padStart(2, "0")}${String(d.getUTCMonth() + 1).padStart(2, "0")}${String(d.getUTCFullYear() % 100).padStart(2, "0")}`;
  const lat = `${dm(p.lat, 2)},${p.lat >= 0 ? "N" : "S"}`;
  const lon = `${dm(p.lon, 3)},${p.lon >= 0 ? "E" : "W"}`;
  return [
    nmea(`GPRMC,${hhmmss},A,${lat},${lon},${knots.toFixed(1)},${course.toFixed(1)},${ddmmyy},,,A`),
    nmea(`GPGGA,${hhmmss},${lat},${lon},1,08,0.9,${(p.alt ?? 10).toFixed(1)},M,,M,,`),
  ];
}

/**
 * A two-hour drive: parked `parkedBefore` minutes at `start`, then east at `speed` m/s for
 * `driving` minutes with a point every `step` seconds, then parked for the rest of two hours.
 */
export function twoHourDrive(options: {
  start: GeoPoint;
  t0: number;
  parkedBefore: number;
  driving: number;
  speed: number;
  step?: number;
}): TimedPoint[] {
  const step = options.step ?? 10;
  const points: TimedPoint[] = [];
  let here: GeoPoint = options.start;
  let t = options.t0;
  points.push({ ...here, time: t });
  t += options.parkedBefore * 60_000;
  points.push({ ...here, time: t });
  const legs = (options.driving * 60) / step;
  for (let i = 0; i < legs; i++) {
    here = destination(here, 90, options.speed * step);
    t += step * 1000;
    points.push({ lat: here.lat, lon: here.lon, time: t });
  }
  points.push({ lat: here.lat, lon: here.lon, time: options.t0 + 120 * 60_000 });
  return points;
}
