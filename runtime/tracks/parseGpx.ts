import { isLatitude, isLongitude } from "../../firmware/world/geo.js";
import type { TrackPoint } from "../../firmware/world/Track.js";
import { TrackParseError } from "../../firmware/world/TrackParseError.js";

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(Z|[+-](\d{2}):?(\d{2}))?$/;

/**
 * The points of a GPX document: its track points (`<trkpt>`, every track and segment in document
 * order), else its route points (`<rtept>`), else its waypoints (`<wpt>`), with `ele`, `time` and
 * the GPX 1.0 `speed`, `course`, `hdop`, `sat` children when present. A small scanner rather than
 * an XML parser: GPX files are flat.
 * Anything it cannot read is a TrackParseError naming the line.
 */
export function parseGpx(text: string): TrackPoint[] {
  const lines = lineStarts(text);
  if (!/<gpx[\s>]/.test(text)) throw new TrackParseError("not a GPX document: it has no <gpx> element");
  for (const tag of ["trkpt", "rtept", "wpt"]) {
    const points = scan(text, tag, lines);
    if (points.length > 0) return points;
  }
  throw new TrackParseError("the GPX document has no track points, route points or waypoints");
}

function scan(text: string, tag: string, lines: number[]): TrackPoint[] {
  const points: TrackPoint[] = [];
  const open = `<${tag}`;
  const close = `</${tag}`;
  let at = text.indexOf(open);
  while (at >= 0) {
    const after = text.charAt(at + open.length);
    if (!/[\s/>]/.test(after)) {
      at = text.indexOf(open, at + 1);
      continue;
    }
    const line = lineOf(lines, at);
    const startEnd = text.indexOf(">", at);
    if (startEnd < 0) throw new TrackParseError(`<${tag}> is not closed with ">"`, line);
    const selfClosing = text.charAt(startEnd - 1) === "/";
    const attributes = text.slice(at + open.length, selfClosing ? startEnd - 1 : startEnd);
    let body = "";
    let next = startEnd + 1;
    if (!selfClosing) {
      const end = text.indexOf(close, startEnd);
      if (end < 0) throw new TrackParseError(`<${tag}> has no </${tag}>`, line);
      body = text.slice(startEnd + 1, end);
      next = end + close.length;
    }
    points.push(readPoint(tag, attributes, body, points.length + 1, line));
    at = text.indexOf(open, next);
  }
  return points;
}

function readPoint(tag: string, attributes: string, body: string, n: number, line: number): TrackPoint {
  const where = `<${tag}> ${n}`;
  const lat = number(attribute(attributes, "lat"), `${where}: lat`, line);
  const lon = number(attribute(attributes, "lon"), `${where}: lon`, line);
  if (lat === undefined || lon === undefined)
    throw new TrackParseError(`${where} needs both lat and lon attributes`, line);
  if (!isLatitude(lat)) throw new TrackParseError(`${where}: lat ${lat} is not in -90..90`, line);
  if (!isLongitude(lon)) throw new TrackParseError(`${where}: lon ${lon} is not in -180..180`, line);
  const point: { -readonly [K in keyof TrackPoint]: TrackPoint[K] } = { lat, lon };
  const alt = number(child(body, "ele"), `${where}: <ele>`, line);
  if (alt !== undefined) point.alt = alt;
  const time = child(body, "time");
  if (time !== undefined) point.time = isoTime(time, `${where}: <time>`, line);
  const speed = number(child(body, "speed"), `${where}: <speed>`, line);
  if (speed !== undefined) {
    if (speed < 0) throw new TrackParseError(`${where}: <speed> ${speed} is negative`, line);
    point.speed = speed;
  }
  const course = number(child(body, "course"), `${where}: <course>`, line);
  if (course !== undefined)
    point.course = course >= 0 && course < 360 ? course : ((course % 360) + 360) % 360;
  const dop = number(child(body, "hdop"), `${where}: <hdop>`, line);
  if (dop !== undefined && dop >= 0) point.dop = dop;
  const sat = number(child(body, "sat"), `${where}: <sat>`, line);
  if (sat !== undefined && Number.isInteger(sat) && sat >= 0) point.satellites = sat;
  return point;
}

function attribute(attributes: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`).exec(attributes);
  return match ? (match[1] ?? match[2]) : undefined;
}

function child(body: string, name: string): string | undefined {
  const start = body.indexOf(`<${name}>`);
  if (start < 0) return undefined;
  const end = body.indexOf(`</${name}>`, start);
  if (end < 0) return undefined;
  return body.slice(start + name.length + 2, end).trim();
}

function number(text: string | undefined, what: string, line: number): number | undefined {
  if (text === undefined) return undefined;
  if (!NUMBER.test(text.trim())) throw new TrackParseError(`${what} "${clip(text)}" is not a number`, line);
  const value = Number(text);
  if (!Number.isFinite(value)) throw new TrackParseError(`${what} "${clip(text)}" is out of range`, line);
  return value;
}

/** An ISO 8601 date and time (UTC unless an offset is given), as epoch milliseconds. */
export function isoTime(text: string, what: string, line?: number): number {
  const m = ISO_TIME.exec(text.trim());
  const bad = () =>
    new TrackParseError(`${what} "${clip(text)}" is not an ISO 8601 time (2026-01-01T12:00:00Z)`, line);
  if (!m) throw bad();
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) throw bad();
  const fraction = m[7] ? Number(m[7]) * 1000 : 0;
  let ms = Date.UTC(year, month - 1, day, hour, minute, second) + Math.round(fraction);
  if (m[8] && m[8] !== "Z") {
    const sign = m[8].startsWith("-") ? -1 : 1;
    const offset = (Number(m[9]) * 60 + Number(m[10])) * 60_000;
    ms -= sign * offset;
  }
  if (!Number.isFinite(ms)) throw bad();
  return ms;
}

function clip(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f]/g, "?");
  return clean.length > 40 ? `${clean.slice(0, 40)}...` : clean;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

function lineOf(starts: number[], index: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= index) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
