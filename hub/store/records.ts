/**
 * The hub's records as the store keeps them. Times are epoch milliseconds unless a name says
 * otherwise (`...Sec`); the API layer turns them into the wire shapes (ISO strings, epoch seconds).
 */
import type { JsonObject } from "../../core/json.js";
import type { NoteRecord as ProtocolNote } from "../../protocol/NoteRecord.js";

export type ProjectRole = "owner" | "developer" | "viewer";
export type OrgRole = "org_admin" | "billing_manager" | "project_creator" | "org_member";

export interface Contact {
  name?: string;
  email?: string;
  role?: string;
  organization?: string;
}

export interface UserRecord {
  uid: string;
  /** Login name (an e-mail address on the hosted service); unique, case-insensitive. */
  username: string;
  name: string;
  email: string;
  passwordHash: string;
  /** Service staff: may write and delete global descriptions. */
  staff: boolean;
  created: number;
}

/** An organization; the deprecated billing-account API is a view of the same record. */
export interface OrganizationRecord {
  uid: string;
  name: string;
  ownerUid: string;
  email: string;
  contactUid: string;
  suspended: boolean;
  planType: "Essentials" | "Enterprise";
  /** Billable events per calendar month (UTC) included in the plan. */
  eventCapacity: number;
  planStart: number;
  planEnd: number | null;
  created: number;
}

export interface ProjectRecord {
  uid: string;
  label: string;
  orgUid: string;
  created: number;
  administrativeContact: Contact | null;
  technicalContact: Contact | null;
}

export interface ProductRecord {
  uid: string;
  projectUid: string;
  label: string;
  disableDevicesByDefault: boolean;
  autoProvisionFleets: string[] | null;
  created: number;
}

export interface FleetRecord {
  uid: string;
  projectUid: string;
  label: string;
  created: number;
  smartRule: string | null;
  smartRuleEnabled: boolean;
  watchdogMins: number;
  connectivityAssurance: boolean | null;
}

/** A new fleet: no smart rule, no watchdog, connectivity assurance unset, unless `settings` say. */
export function newFleet(
  identity: Pick<FleetRecord, "uid" | "projectUid" | "label" | "created">,
  settings: Partial<Omit<FleetRecord, "uid" | "projectUid" | "label" | "created">> = {},
): FleetRecord {
  return {
    ...identity,
    smartRule: settings.smartRule ?? null,
    smartRuleEnabled: settings.smartRuleEnabled ?? false,
    watchdogMins: settings.watchdogMins ?? 0,
    connectivityAssurance: settings.connectivityAssurance ?? null,
  };
}

/** A location as the device record shows it (`when` in epoch seconds). */
export interface LocationRecord {
  whenSec: number;
  name: string;
  country: string;
  timezone: string;
  latitude: number;
  longitude: number;
}

export interface SimUsageRecord {
  iccid?: string;
  used?: number;
  limit?: number;
  lifetime_used?: number;
  last_updated?: number;
}

/** Descriptive state of a device that the sync (and tests) fill in; stored as one document. */
export interface DeviceDetails {
  contact?: Contact | null;
  towerInfo?: { mcc: number; mnc: number; lac: number; cell_id: number } | null;
  gpsLocation?: LocationRecord | null;
  towerLocation?: LocationRecord | null;
  triangulatedLocation?: LocationRecord | null;
  dfu?: JsonObject | null;
  cellularUsage?: SimUsageRecord[] | null;
  /** SIM plans as the plans endpoint shows them (CellularPlan shape). */
  cellularPlans?: JsonObject[] | null;
  /** The scrypt hash of the device's PIN (hub/auth/devicePin.ts), once one was issued. */
  pinHash?: string | null;
}

export interface DeviceRecord {
  uid: string;
  projectUid: string;
  productUid: string;
  serialNumber: string | null;
  provisioned: number;
  lastActivity: number | null;
  disabled: boolean;
  sku: string | null;
  /** Module firmware version as the module reports it (JSON text). */
  firmwareModule: string | null;
  /** Host firmware version (JSON text), if the host set one. */
  firmwareHost: string | null;
  voltage: number;
  temperature: number;
  tags: string[];
  fleetUids: string[];
  details: DeviceDetails;
  publicKey: string | null;
  /** True while the module holds an open continuous session (signals are delivered at once). */
  connected: boolean;
  connectivityAssurance: boolean;
}

/** Fields a caller may set when creating or updating a device (everything else keeps its value). */
export type DeviceInput = Partial<Omit<DeviceRecord, "uid" | "projectUid" | "fleetUids" | "details">> & {
  uid: string;
  projectUid: string;
  productUid: string;
  fleetUids?: string[];
  details?: DeviceDetails;
};

export interface DeviceFilter {
  deviceUids?: string[];
  serialNumbers?: string[];
  tags?: string[];
  fleetUids?: string[];
  /** Numeric versions (`8.1`, `8.1.3.17004`); a device matches a full or leading-part version. */
  moduleFirmware?: string[];
  hostFirmware?: string[];
  /** City, state or country; partial, case-insensitive. */
  locations?: string[];
  productUids?: string[];
  skus?: string[];
}

export interface Page {
  /** Rows to skip. */
  offset: number;
  /** Rows to return. */
  limit: number;
}

export interface PageResult<T> {
  items: T[];
  hasMore: boolean;
}

export type EnvScope =
  | { kind: "project"; uid: string }
  | { kind: "fleet"; uid: string }
  | { kind: "device"; uid: string }
  /** Values the module declared with env.default (synced up from the device). */
  | { kind: "device_default"; uid: string };

export interface EnvVarRecord {
  key: string;
  value: string;
  modified: number;
}

export interface SessionRecord {
  uid: string;
  deviceUid: string;
  projectUid: string;
  beganSec: number;
  endedSec: number | null;
  firstSync: boolean;
  /** The full session document as the API returns it (DeviceSession shape). */
  data: JsonObject;
}

export interface EventRecord {
  uid: string;
  projectUid: string;
  deviceUid: string;
  sessionUid: string | null;
  file: string;
  /** Epoch seconds, may be fractional. */
  received: number;
  /** Epoch seconds the device captured the event. */
  whenSec: number;
  /** The full event document as the API returns it (Event shape). */
  data: JsonObject;
  /**
   * `data` as JSON text, when the event's maker wrote it already: the store keeps this text
   * instead of writing `data` again. The same members as `data`, perhaps in another order (a
   * synced note's body with its keys sorted). Never set on a record read from the store.
   */
  dataText?: string;
}

/** The orders of the Events API (`sortBy`). */
export const EVENT_SORT_KEYS = [
  "best_id",
  "device_serial",
  "device_uid",
  "captured",
  "modified",
  "device_location",
  "tower_location",
  "triangulated_location",
  "best_location",
] as const;
export type EventSortKey = (typeof EVENT_SORT_KEYS)[number];

/**
 * Which events of a project a query reads; every given condition must hold, and a list matches
 * any of its values. A record's fleets are those its document lists (`fleets`, as the device sync
 * records them when the hub receives it), or, when it lists none, its device's fleets now.
 */
export interface EventFilter {
  deviceUids?: string[];
  /** The serial number the event carries (`sn`). */
  serialNumbers?: string[];
  /** Fleets of the project (another project's fleet matches nothing). */
  fleetUids?: string[];
  sessionUids?: string[];
  eventUids?: string[];
  files?: string[];
  /** Only the system's notefiles (names starting with `_`). */
  systemFilesOnly?: boolean;
  /** Epoch seconds, [fromSec, toSec), on the time the device captured the event or the hub received it. */
  fromSec?: number;
  toSec?: number;
  dateType?: "captured" | "received";
}

/**
 * An order of events. Ties go by capture time, then receive time, then the order the hub stored
 * them in (for `modified`, by storing order alone), all in the same direction.
 */
export interface EventOrder {
  by: EventSortKey;
  descending: boolean;
}

/** A page of the events cursor: the events in the order the hub stored them, from `cursor` on. */
export interface EventCursorQuery {
  /** An event UID: the page starts with it (if it passes the filter); unknown, from the start. */
  cursor: string | null;
  /** Newest first. */
  descending: boolean;
  limit: number;
}

export interface EventCursorPage {
  items: EventRecord[];
  /** The event the next page starts with; null at the end. */
  next: string | null;
}

export type UsagePeriod = "day" | "week" | "month";
export type UsageAggregate = "device" | "fleet" | "project";

/** What a usage query counts: records of a project in [fromSec, toSec), per UTC period. */
export interface UsageQuery {
  period: UsagePeriod;
  /** What each row's `key` is: the DeviceUID, a FleetUID (a record counts in each of its fleets), or "". */
  aggregate: UsageAggregate;
  fromSec: number;
  toSec: number;
  deviceUids?: string[];
  fleetUids?: string[];
  /** Events only: these notefiles. */
  files?: string[];
}

/** One device's share of a usage row (rolled up by the caller: device counts need the devices). */
export interface UsageRow {
  key: string;
  /** Start of the UTC period (day, week from Monday, month), epoch seconds. */
  periodSec: number;
  deviceUid: string;
}

/** Sessions by when they began, per transport (`cell`, `wifi`, `ntn`, `lorawan`, ...) and SIM. */
export interface SessionUsageRow extends UsageRow {
  transport: string;
  /** "" when the session named none. */
  iccid: string;
  sessions: number;
  firstSyncSessions: number;
  tlsSessions: number;
  /** The sessions' counted traffic (`period.bytes_sent`, `period.bytes_rcvd`). */
  bytesSent: number;
  bytesReceived: number;
}

/** Events by when the hub received them, per notefile. */
export interface EventUsageRow extends UsageRow {
  file: string;
  billable: boolean;
  events: number;
}

/** Health log entries by when they were logged (an entry's fleets are its device's now: it records none). */
export interface HealthUsageRow extends UsageRow {
  boots: number;
  firmwareUpdates: number;
}

export interface HealthLogRecord {
  /** The project the device belonged to when it logged the entry. */
  projectUid: string;
  deviceUid: string;
  whenSec: number;
  alert: boolean;
  text: string;
  /** `boot`, `dfu_completed`, or another kind. */
  type: string;
}

/** One note of a device's hub-side notefile replica. */
export interface NoteRecord {
  noteId: string;
  body: JsonObject | null;
  /** Base64 text. */
  payload: string | null;
  /** Epoch seconds of the last change. */
  timeSec: number;
  change: number;
  updates: number;
  deleted: boolean;
  /** Endpoint that made the last change: "1" the hub, "" the device. */
  endpoint: string;
  /**
   * The version vector of the stored version (protocol `NoteRecord.history`): per endpoint, the
   * update count of its last change this version has seen; null when it is only its own change.
   */
  history: Readonly<Record<string, number>> | null;
  /** Versions that lost a merge against this one (protocol records), kept rather than dropped. */
  conflicts: readonly ProtocolNote[] | null;
  /** Where the device was when it made the change (its last location fix). */
  where: NotePlace | null;
  /**
   * The stored version came from the device unchanged: the device holds it already, so the sync
   * does not send it back (no echo) and it is not pending for the device.
   */
  arrived: boolean;
}

/** A device's location when it changed a note (epoch seconds). */
export interface NotePlace {
  lat: number;
  lon: number;
  time: number;
}

export interface NotefileRecord {
  deviceUid: string;
  fileId: string;
  /** Change number the next modification will get. */
  nextChange: number;
  /** Notes that are not tombstones. */
  total: number;
  created: number;
  modified: number;
}

export interface SignalRecord {
  seq: number;
  deviceUid: string;
  body: JsonObject;
  created: number;
}

export interface DescriptionRecord {
  name: string;
  contentType: string;
  size: number;
  created: number;
  modified: number;
  createdBy: string;
}

export type TokenKind = "pat" | "session" | "oauth";

export interface AccessTokenRecord {
  uid: string;
  kind: TokenKind;
  /** SHA-256 of the secret (hex); the secret itself is never stored. */
  hash: string;
  userUid: string | null;
  clientId: string | null;
  projectUid: string | null;
  role: ProjectRole | null;
  scope: string | null;
  name: string;
  description: string;
  created: number;
  expires: number | null;
  suspended: boolean;
  lastUsed: number | null;
}

export interface OAuthClientRecord {
  clientId: string;
  secretHash: string;
  projectUid: string;
  role: ProjectRole;
  name: string;
  created: number;
  createdBy: string;
}
