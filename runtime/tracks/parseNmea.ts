import type { TrackPoint } from "../../firmware/world/Track.js";
import { TrackParseError } from "../../firmware/world/TrackParseError.js";

const KNOTS = 1852 / 3600;
const DAY_MS = 86_400_000;
const TIME = /^(\d{2})(\d{2})(\d{2}(?:\.\d{1,6})?)$/;
const DATE = /^(\d{2})(\d{2})(\d{2})$/;
const COORD = /^(\d{1,3})(\d{2}(?:\.\d+)?)$/;
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

type MutablePoint = { -readonly [K in keyof TrackPoint]: TrackPoint[K] };

/**
 * The fixes of an NMEA 0183 log: `RMC` sentences (time, date, position, speed, course) and `GGA`
 * sentences (time, position, satellites, HDOP, altitude) of any talker (`GP`, `GN`, `GL`, ...),
 * merged into one point per time stamp; other sentences are skipped, and so are sentences
 * without a fix (RMC status `V`, GGA quality 0). A checksum, when present, must match. The date
 * comes from the RMC sentences (a log without any starts on 1970-01-01; only relative times
 * matter for playback); a time of day going back by more than 12 hours is the next day.
 */
export function parseNmea(text: string): TrackPoint[] {
  const lines = text.split(/\r?\n|\r/);
  let date = firstDate(lines);
  let lastTimeOfDay: number | undefined;
  const points: MutablePoint[] = [];
  for (const [i, raw] of lines.entries()) {
    const line = i + 1;
    const sentence = raw.trim();
    if (sentence === "") continue;
    const fields = sentenceFields(sentence, line);
    const type = fields[0]!.slice(-3);
    if (type !== "RMC" && type !== "GGA") continue;
    const timeOfDay = time(fields[1], line);
    let newDate = false;
    if (type === "RMC" && fields[9]) {
      date = dateOf(fields[9], line);
      newDate = true;
    }
    if (timeOfDay === undefined) continue;
    const fix = type === "RMC" ? rmc(fields, line) : gga(fields, line);
    if (!fix) continue;
    if (!newDate && lastTimeOfDay !== undefined && timeOfDay < lastTimeOfDay - DAY_MS / 2) date += DAY_MS;
    lastTimeOfDay = timeOfDay;
    const at = date + timeOfDay;
    const last = points[points.length - 1];
    if (last && last.time === at) Object.assign(last, fix);
    else points.push({ ...fix, time: at });
  }
  if (points.length === 0)
    throw new TrackParseError(
      "the NMEA log has no position fix (an RMC sentence with status A, or a GGA with a fix)",
    );
  return points;
}

function sentenceFields(sentence: string, line: number): string[] {
  if (!sentence.startsWith("$"))
    throw new TrackParseError(`"${clip(sentence)}" is not an NMEA sentence (sentences start with $)`, line);
  const star = sentence.indexOf("*");
  const body = star < 0 ? sentence.slice(1) : sentence.slice(1, star);
  if (star >= 0) {
    const given = sentence.slice(star + 1);
    if (!/^[0-9A-Fa-f]{2}$/.test(given))
      throw new TrackParseError(`checksum "${clip(given)}" is not two hexadecimal digits`, line);
    let sum = 0;
    for (let i = 0; i < body.length; i++) sum ^= body.charCodeAt(i) & 0xff;
    if (sum !== parseInt(given, 16))
      throw new TrackParseError(
        `checksum mismatch: the sentence sums to ${hex(sum)}, its checksum says ${given.toUpperCase()}`,
        line,
      );
  }
  const fields = body.split(",");
  if (!/^[A-Z]{2,}[A-Z]{3}$/.test(fields[0]!) && !/^P[A-Z0-9]+$/.test(fields[0]!))
    throw new TrackParseError(`"${clip(fields[0]!)}" is not an NMEA talker and sentence type`, line);
  return fields;
}

function rmc(f: string[], line: number): MutablePoint | undefined {
  if (f[2] !== "A") return undefined;
  const point = position(f[3], f[4], f[5], f[6], line);
  const knots = decimal(f[7], "speed", line);
  if (knots !== undefined) {
    if (knots < 0) throw new TrackParseError(`speed ${knots} knots is negative`, line);
    point.speed = knots * KNOTS;
  }
  const course = decimal(f[8], "course", line);
  if (course !== undefined)
    point.course = course >= 0 && course < 360 ? course : ((course % 360) + 360) % 360;
  return point;
}

function gga(f: string[], line: number): MutablePoint | undefined {
  const quality = f[6];
  if (quality === undefined || quality === "" || quality === "0") return undefined;
  if (!/^\d$/.test(quality)) throw new TrackParseError(`fix quality "${clip(quality)}" is not a digit`, line);
  const point = position(f[2], f[3], f[4], f[5], line);
  const sats = decimal(f[7], "satellites", line);
  if (sats !== undefined && Number.isInteger(sats) && sats >= 0) point.satellites = sats;
  const hdop = decimal(f[8], "HDOP", line);
  if (hdop !== undefined && hdop >= 0) point.dop = hdop;
  const alt = decimal(f[9], "altitude", line);
  if (alt !== undefined) point.alt = alt;
  return point;
}

function position(
  lat: string | undefined,
  ns: string | undefined,
  lon: string | undefined,
  ew: string | undefined,
  line: number,
): MutablePoint {
  const latitude = coordinate(lat, 90, "latitude", line);
  const longitude = coordinate(lon, 180, "longitude", line);
  if (ns !== "N" && ns !== "S")
    throw new TrackParseError(`latitude hemisphere "${clip(ns ?? "")}" is not N or S`, line);
  if (ew !== "E" && ew !== "W")
    throw new TrackParseError(`longitude hemisphere "${clip(ew ?? "")}" is not E or W`, line);
  return { lat: ns === "S" ? -latitude : latitude, lon: ew === "W" ? -longitude : longitude };
}

function coordinate(text: string | undefined, max: number, what: string, line: number): number {
  const m = COORD.exec(text ?? "");
  if (!m)
    throw new TrackParseError(`${what} "${clip(text ?? "")}" is not degrees and minutes (ddmm.mmmm)`, line);
  const degrees = Number(m[1]);
  const minutes = Number(m[2]);
  const value = degrees + minutes / 60;
  if (minutes >= 60 || value > max)
    throw new TrackParseError(`${what} "${clip(text ?? "")}" is out of range`, line);
  return value;
}

function time(text: string | undefined, line: number): number | undefined {
  if (!text) return undefined;
  const m = TIME.exec(text);
  if (!m) throw new TrackParseError(`time "${clip(text)}" is not hhmmss.ss`, line);
  const [h, min, s] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (h > 23 || min > 59 || s >= 61) throw new TrackParseError(`time "${clip(text)}" is out of range`, line);
  return Math.round(((h * 60 + min) * 60 + s) * 1000);
}

function dateOf(text: string, line: number): number {
  const m = DATE.exec(text);
  if (!m) throw new TrackParseError(`date "${clip(text)}" is not ddmmyy`, line);
  const [day, month, yy] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (day < 1 || day > 31 || month < 1 || month > 12)
    throw new TrackParseError(`date "${clip(text)}" is out of range`, line);
  return Date.UTC(yy < 80 ? 2000 + yy : 1900 + yy, month - 1, day);
}

function decimal(text: string | undefined, what: string, line: number): number | undefined {
  if (text === undefined || text === "") return undefined;
  if (!DECIMAL.test(text)) throw new TrackParseError(`${what} "${clip(text)}" is not a number`, line);
  return Number(text);
}

/** The date of the first RMC that has one, so fixes before it are dated too. */
function firstDate(lines: readonly string[]): number {
  for (const raw of lines) {
    const fields = raw.trim().split("*")[0]!.split(",");
    if (fields[0]?.endsWith("RMC") && fields[9] && DATE.test(fields[9])) {
      try {
        return dateOf(fields[9], 0);
      } catch {
        return 0;
      }
    }
  }
  return 0;
}

function hex(n: number): string {
  return n.toString(16).toUpperCase().padStart(2, "0");
}

function clip(text: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = text.replace(/[\u0000-\u001f]/g, "?");
  return clean.length > 40 ? `${clean.slice(0, 40)}...` : clean;
}
