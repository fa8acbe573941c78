import { canonicalJson, type JsonObject } from "../../core/json.js";
import { openLocationCode } from "../../core/openLocationCode.js";
import type { SessionContext, TriangulationScan } from "../../protocol/messages.js";
import type { NoteRecord as ProtocolNote } from "../../protocol/NoteRecord.js";
import { sessionRadio } from "../../protocol/sessionRadio.js";
import type { DeviceRecord, LocationRecord } from "../store/records.js";
import type { SyncSession } from "./SyncSessions.js";

/**
 * The documents the device sync stores: events (OpenAPI `Event`) and session records (OpenAPI
 * `DeviceSession`), built from the device record, the session and what the module said.
 */

/** The session's transport as the usage API groups it (`cell:…`, `wifi`, `lorawan`, `ntn`). */
export function transportOf(radio: SessionContext["radio"]): string {
  const bearer = radio.bearer.toLowerCase();
  if (bearer.includes("wifi") || radio.rat.toLowerCase() === "wifi") return "wifi";
  if (bearer.includes("lora")) return "lorawan";
  if (bearer.includes("ntn") || bearer.includes("sat")) return "ntn";
  return `cell:${radio.rat}`;
}

/** A place as an event or session record's `<prefix>_*` members (GPS places also as `where_olc`). */
export function located(out: JsonObject, prefix: "where" | "tower" | "tri", l: LocationRecord): void {
  out[`${prefix}_lat`] = l.latitude;
  out[`${prefix}_lon`] = l.longitude;
  out[`${prefix}_when`] = l.whenSec;
  if (l.name) out[`${prefix}_location`] = l.name;
  if (l.country) out[`${prefix}_country`] = l.country;
  if (l.timezone) out[`${prefix}_timezone`] = l.timezone;
  if (prefix === "where") out.where_olc = openLocationCode(l.latitude, l.longitude);
}

/** A place as a session record's `tower` or `tri` (TowerLocation). */
function towerLocation(l: LocationRecord, extra: JsonObject): JsonObject {
  return {
    lat: l.latitude,
    lon: l.longitude,
    time: l.whenSec,
    l: openLocationCode(l.latitude, l.longitude),
    ...(l.name ? { n: l.name } : {}),
    ...(l.country ? { c: l.country } : {}),
    ...(l.timezone ? { zone: l.timezone } : {}),
    ...extra,
  };
}

/**
 * Where the towers of a triangulation scan put the module: the mean of their positions weighted
 * by received amplitude (a tower 6 dB stronger counts twice), or undefined without towers. WiFi
 * access points have no position the hub could know, so they do not count.
 */
export function triangulate(
  scan: TriangulationScan,
): { lat: number; lon: number; points: number } | undefined {
  let weight = 0;
  let lat = 0;
  let x = 0;
  let y = 0;
  for (const t of scan.towers) {
    const w = 10 ** (t.rssi / 20);
    const lon = (t.lon * Math.PI) / 180;
    weight += w;
    lat += w * t.lat;
    // Longitudes averaged as directions, so towers either side of the date line stay together.
    x += w * Math.cos(lon);
    y += w * Math.sin(lon);
  }
  if (weight === 0) return undefined;
  return { lat: lat / weight, lon: (Math.atan2(y, x) * 180) / Math.PI, points: scan.towers.length };
}

/**
 * What every event of a session says besides its note: the device and its project, the session,
 * how it arrived, and the device's tower and best location as the hub knows them.
 */
export function eventBase(device: DeviceRecord, session: SyncSession): JsonObject {
  const out: JsonObject = {
    app: device.projectUid,
    product: device.productUid,
    device: device.uid,
    best_id: device.serialNumber ?? device.uid,
    session: session.uid,
    transport: session.transport,
    tls: session.secure,
  };
  if (device.serialNumber) out.sn = device.serialNumber;
  const d = device.details;
  if (d.towerLocation) located(out, "tower", d.towerLocation);
  if (d.towerInfo) {
    const t = d.towerInfo;
    out.tower_id = `${t.mcc},${t.mnc},${t.lac},${t.cell_id}`;
  }
  if (d.triangulatedLocation) located(out, "tri", d.triangulatedLocation);
  const best = d.gpsLocation
    ? (["gps", d.gpsLocation] as const)
    : d.triangulatedLocation
      ? (["triangulated", d.triangulatedLocation] as const)
      : d.towerLocation
        ? (["tower", d.towerLocation] as const)
        : undefined;
  if (best) {
    out.best_location_type = best[0];
    out.best_lat = best[1].latitude;
    out.best_lon = best[1].longitude;
    out.best_location_when = best[1].whenSec;
    if (best[1].name) out.best_location = best[1].name;
    if (best[1].country) out.best_country = best[1].country;
    if (best[1].timezone) out.best_timezone = best[1].timezone;
  }
  return out;
}

/** `eventBase` and its JSON text (and that text less its closing brace), written once for all the events of a message. */
export interface EventBase {
  readonly data: JsonObject;
  readonly text: string;
  readonly head: string;
}

export function eventBaseOf(device: DeviceRecord, session: SyncSession): EventBase {
  const data = eventBase(device, session);
  const text = JSON.stringify(data);
  return { data, text, head: text.slice(0, -1) };
}

/**
 * The event of a device's note (`received`: epoch seconds, for a note whose time the module did
 * not know), as a document and as its JSON text. The text is the base's text with the note's
 * members after it, and the body as `body`, its canonical text (keys sorted), returned as `body`
 * too, for the event UID: a synced note's body is written as JSON once on the hub, not twice.
 */
export function noteEvent(
  base: EventBase,
  file: string,
  note: ProtocolNote,
  req: string,
  queue: boolean,
  received: number,
  locate: (lat: number, lon: number, whenSec: number) => LocationRecord,
): { data: JsonObject; text: string; body: string | undefined; whenSec: number } {
  const whenSec = note.when > 0 ? Math.floor(note.when) : Math.floor(received);
  // The base's members, then the note's, set on one copy of the base (Object.assign, not a
  // spread: for an object of this shape V8 copies it many times faster), with no object of the
  // note's members made to be copied in turn.
  const data: JsonObject = Object.assign({}, base.data);
  data.req = req;
  data.file = file;
  data.updates = note.updates;
  data.when = whenSec;
  // The note's members as JSON.stringify writes them (counts and whole seconds are integers,
  // written alike by a template), less their braces, without serializing them as an object.
  let members = `"req":"${req}","file":${JSON.stringify(file)},"updates":${note.updates},"when":${whenSec}`;
  if (!queue) {
    data.note = note.id;
    members += `,"note":${JSON.stringify(note.id)}`;
  }
  if (!note.deleted && note.payload !== undefined) {
    data.payload = note.payload;
    members += `,"payload":${JSON.stringify(note.payload)}`;
  }
  if (note.where) {
    const where: JsonObject = {};
    located(where, "where", locate(note.where.lat, note.where.lon, note.where.time));
    Object.assign(data, where);
    members += `,${JSON.stringify(where).slice(1, -1)}`;
  }
  // Written in one go (each piece once): the base's members, the note's, then the body.
  if (note.deleted || note.body === undefined)
    return { data, text: `${base.head},${members}}`, body: undefined, whenSec };
  data.body = note.body;
  const body = canonicalJson(note.body);
  return { data, text: `${base.head},${members},"body":${body}}`, body, whenSec };
}

/** The session record's document when the session opens (DeviceSession, less `period`). */
export function sessionDocument(
  device: DeviceRecord,
  session: SyncSession,
  context: SessionContext,
  why: string,
): JsonObject {
  const out: JsonObject = {
    session: session.uid,
    device: device.uid,
    product: device.productUid,
    fleets: [...device.fleetUids],
    why_session_opened: why,
    transport: session.transport,
    tls: session.secure,
    continuous: session.continuous,
    voltage: context.voltage,
    power_usb: context.usb,
    ...sessionRadio(context.radio),
  };
  if (device.serialNumber) out.sn = device.serialNumber;
  if (context.temp !== undefined) out.temp = context.temp;
  if (context.penalty_secs !== undefined) out.penalty_secs = Math.floor(context.penalty_secs);
  if (context.failed_connects !== undefined) out.failed_connects = context.failed_connects;
  if (context.energy) Object.assign(out, context.energy);
  const d = device.details;
  if (d.gpsLocation) {
    located(out, "where", d.gpsLocation);
    out.where = openLocationCode(d.gpsLocation.latitude, d.gpsLocation.longitude);
    delete out.where_olc; // a session record has `where` instead
  }
  if (context.wifi) {
    out.ssid = context.wifi.ssid;
    if (context.wifi.bssid) out.bssid = context.wifi.bssid;
  }
  const info = d.towerInfo;
  if (info) out.cell = `${info.mcc},${info.mnc},${info.lac},${info.cell_id}`;
  if (context.tower && d.towerLocation) {
    out.tower = towerLocation(d.towerLocation, {
      ...(info ? { mcc: info.mcc, mnc: info.mnc, lac: info.lac, cid: info.cell_id } : {}),
      source: "tower",
    });
  }
  const scan = context.triangulate;
  if (scan) {
    out.triangulate = {
      mode: scan.mode,
      towers: scan.towers.length,
      wifi: scan.wifi.length,
      time: scan.time,
    };
    const tri = triangulate(scan);
    if (tri && d.triangulatedLocation) {
      out.tri = towerLocation(d.triangulatedLocation, { towers: tri.points, source: "triangulation" });
    }
  }
  return out;
}

/**
 * The session's traffic as the hub counted it (DeviceUsage, from the device's side: `sent` is
 * what the module sent): every message's JSON both ways, the notes pushed and pulled.
 */
export function sessionPeriod(session: SyncSession, nowMs: number): JsonObject {
  const t = session.traffic;
  return {
    since: Math.floor(session.beganMs / 1000),
    duration: Math.max(0, Math.floor((nowMs - session.beganMs) / 1000)),
    bytes_sent: t.bytesSent,
    bytes_rcvd: t.bytesReceived,
    notes_sent: t.notesSent,
    notes_rcvd: t.notesReceived,
    [session.secure ? "sessions_tls" : "sessions_tcp"]: 1,
  };
}
