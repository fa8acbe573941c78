import type { JsonObject } from "../../core/json.js";
import type { SessionContext } from "../../protocol/messages.js";
import type { NoteRecord as ProtocolNote } from "../../protocol/NoteRecord.js";
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

function located(out: JsonObject, prefix: string, l: LocationRecord): void {
  out[`${prefix}_lat`] = l.latitude;
  out[`${prefix}_lon`] = l.longitude;
  out[`${prefix}_when`] = l.whenSec;
  if (l.name) out[`${prefix}_location`] = l.name;
  if (l.country) out[`${prefix}_country`] = l.country;
  if (l.timezone) out[`${prefix}_timezone`] = l.timezone;
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

/** The event of a device's note (`received`: epoch seconds, for a note whose time the module did not know). */
export function noteEvent(
  base: JsonObject,
  file: string,
  note: ProtocolNote,
  req: string,
  queue: boolean,
  received: number,
  zoneOf: (lat: number, lon: number) => string | undefined,
): { data: JsonObject; whenSec: number } {
  const whenSec = note.when > 0 ? Math.floor(note.when) : Math.floor(received);
  // Object.assign, not a spread: for an object of this shape V8 copies it many times faster.
  const data: JsonObject = Object.assign({}, base);
  data.req = req;
  data.file = file;
  data.updates = note.updates;
  data.when = whenSec;
  if (!queue) data.note = note.id;
  if (!note.deleted) {
    if (note.body !== undefined) data.body = note.body;
    if (note.payload !== undefined) data.payload = note.payload;
  }
  if (note.where) {
    data.where_lat = note.where.lat;
    data.where_lon = note.where.lon;
    data.where_when = note.where.time;
    const zone = zoneOf(note.where.lat, note.where.lon);
    if (zone) data.where_timezone = zone;
  }
  return { data, whenSec };
}

/** The session record's document when the session opens (DeviceSession, less `period`). */
export function sessionDocument(
  device: DeviceRecord,
  session: SyncSession,
  context: SessionContext,
  why: string,
): JsonObject {
  const r = context.radio;
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
    rat: r.rat,
    bearer: r.bearer,
    rssi: r.rssi,
    rsrp: r.rsrp,
    rsrq: r.rsrq,
    sinr: r.sinr,
    bars: r.bars,
  };
  if (device.serialNumber) out.sn = device.serialNumber;
  if (context.temp !== undefined) out.temp = context.temp;
  if (context.penalty_secs !== undefined) out.penalty_secs = Math.floor(context.penalty_secs);
  if (context.failed_connects !== undefined) out.failed_connects = context.failed_connects;
  const gps = device.details.gpsLocation;
  if (gps) located(out, "where", gps);
  const tower = device.details.towerLocation;
  if (tower) {
    const info = device.details.towerInfo;
    out.tower = {
      lat: tower.latitude,
      lon: tower.longitude,
      time: tower.whenSec,
      n: tower.name,
      c: tower.country,
      zone: tower.timezone,
      ...(info ? { mcc: info.mcc, mnc: info.mnc, lac: info.lac, cid: info.cell_id } : {}),
    };
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
