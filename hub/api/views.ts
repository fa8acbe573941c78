import type {
  DeviceRecord,
  EnvVarRecord,
  FleetRecord,
  LocationRecord,
  NoteRecord,
  ProductRecord,
  ProjectRecord,
  ProjectRole,
  SessionRecord,
} from "../store/records.js";
import type { JsonObject } from "../../core/json.js";
import { eventDocument } from "../events/eventDocument.js";

/** How records look on the wire (shapes per the OpenAPI definition; older client names too). */

/** RFC 3339 UTC, second resolution, as the hosted service writes it (`2026-01-01T00:00:00Z`). */
export function isoTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(".000Z", "Z");
}

function location(l: LocationRecord | null | undefined): JsonObject | undefined {
  if (!l) return undefined;
  return {
    when: isoTime(l.whenSec * 1000),
    name: l.name,
    country: l.country,
    timezone: l.timezone,
    latitude: l.latitude,
    longitude: l.longitude,
  };
}

/** Drops undefined members so they are absent, not null, on the wire. */
function compact(o: JsonObject): JsonObject {
  for (const key of Object.keys(o)) if (o[key] === undefined) delete o[key];
  return o;
}

/** Views of unchanged (shared, frozen) device records are made once. */
const deviceViews = new WeakMap<DeviceRecord, JsonObject>();

export function deviceView(d: DeviceRecord): JsonObject {
  let view = deviceViews.get(d);
  if (!view) {
    view = makeDeviceView(d);
    if (Object.isFrozen(d)) deviceViews.set(d, view);
  }
  return view;
}

function makeDeviceView(d: DeviceRecord): JsonObject {
  const details = d.details;
  const best = details.gpsLocation ?? details.triangulatedLocation ?? details.towerLocation;
  return compact({
    uid: d.uid,
    serial_number: d.serialNumber ?? undefined,
    provisioned: isoTime(d.provisioned),
    last_activity: d.lastActivity === null ? undefined : isoTime(d.lastActivity),
    contact: details.contact ?? undefined,
    product_uid: d.productUid,
    fleet_uids: d.fleetUids,
    tower_info: details.towerInfo ?? undefined,
    tower_location: location(details.towerLocation),
    gps_location: location(details.gpsLocation),
    triangulated_location: location(details.triangulatedLocation),
    best_location: location(best),
    voltage: d.voltage,
    temperature: d.temperature,
    dfu: details.dfu ?? undefined,
    sku: d.sku ?? undefined,
    // The current definition calls it firmware_notecard; the spec calls the module firmware_module.
    firmware_notecard: d.firmwareModule ?? undefined,
    firmware_module: d.firmwareModule ?? undefined,
    firmware_host: d.firmwareHost ?? undefined,
    disabled: d.disabled,
    cellular_usage: details.cellularUsage ?? undefined,
  });
}

export function envMap(vars: readonly EnvVarRecord[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of vars) out[v.key] = v.value;
  return out;
}

export function fleetView(f: FleetRecord, env: readonly EnvVarRecord[]): JsonObject {
  return compact({
    uid: f.uid,
    label: f.label,
    created: isoTime(f.created),
    environment_variables: envMap(env),
    smart_rule: f.smartRule ?? undefined,
    smart_rule_enabled: f.smartRuleEnabled,
    watchdog_mins: f.watchdogMins,
    connectivity_assurance: { enabled: f.connectivityAssurance },
  });
}

export function projectView(p: ProjectRecord, role: ProjectRole | null): JsonObject {
  return {
    uid: p.uid,
    label: p.label,
    created: isoTime(p.created),
    role,
    administrative_contact: p.administrativeContact,
    technical_contact: p.technicalContact,
  };
}

export function productView(p: ProductRecord): JsonObject {
  return {
    uid: p.uid,
    label: p.label,
    auto_provision_fleets: p.autoProvisionFleets,
    disable_devices_by_default: p.disableDevicesByDefault,
  };
}

/** A note as GetDbNote and the changes maps show it: `{body, payload, time}` and `deleted` for tombstones. */
export function noteView(n: NoteRecord): JsonObject {
  const out: JsonObject = {};
  if (n.body !== null) out.body = n.body;
  if (n.payload !== null) out.payload = n.payload;
  out.time = n.timeSec;
  if (n.deleted) out.deleted = true;
  return out;
}

/** A note inside a ListNotefiles entry (the Note schema: `id`, `body`, `time` required). */
export function listedNoteView(n: NoteRecord, pending: boolean): JsonObject {
  const out: JsonObject = { id: n.noteId, body: n.body ?? {}, time: n.timeSec };
  if (n.payload !== null) out.payload = n.payload;
  out.edge = n.endpoint !== "1";
  if (pending) out.pending = true;
  return out;
}

/** The event as the API shows it. */
export const eventView = eventDocument;

export function sessionView(s: SessionRecord): JsonObject {
  return {
    ...s.data,
    session: s.uid,
    device: s.deviceUid,
    // The last capture time of a note the session carried, when the session says; else the
    // time it began.
    when: typeof s.data.when === "number" ? s.data.when : s.beganSec,
    session_began: s.beganSec,
    ...(s.endedSec === null ? {} : { session_ended: s.endedSec }),
  };
}
