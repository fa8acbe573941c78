import type {
  EventRecord,
  EventUsageRow,
  HealthLogRecord,
  HealthUsageRow,
  SessionRecord,
  SessionUsageRow,
} from "../records.js";
import { bool } from "./SqliteConnection.js";
import { storedJson } from "./storedJson.js";

// Rows of the telemetry tables and of the usage queries (eventSql.ts, sessionSql.ts, usageSql.ts),
// and the records they hold.

/** Notefiles whose events the service does not bill (spec: UsageEventsData platform events). */
const PLATFORM_FILES = ["_log", "_session", "_health", "_geolocate"];

/** Whether an event of the notefile is billed (its row's `billable`). */
export function isBillableFile(file: string): boolean {
  const stem = file.replace(/\.[^.]*$/, "");
  return !PLATFORM_FILES.includes(stem);
}

export interface EventRow {
  uid: string;
  project_uid: string;
  device_uid: string;
  session_uid: string | null;
  file: string;
  received: number;
  captured: number;
  data: string;
}

export interface SessionRow {
  uid: string;
  device_uid: string;
  project_uid: string;
  began: number;
  ended: number | null;
  first_sync: number;
  data: string;
}

export interface HealthLogRow {
  when_sec: number;
  alert: number;
  text: string;
  type: string;
}

export const event = (r: EventRow): EventRecord => ({
  uid: r.uid,
  projectUid: r.project_uid,
  deviceUid: r.device_uid,
  sessionUid: r.session_uid,
  file: r.file,
  received: r.received,
  whenSec: r.captured,
  data: storedJson(r.data),
});

export const session = (r: SessionRow): SessionRecord => ({
  uid: r.uid,
  deviceUid: r.device_uid,
  projectUid: r.project_uid,
  beganSec: r.began,
  endedSec: r.ended,
  firstSync: bool(r.first_sync),
  data: storedJson(r.data),
});

export const healthLog = (projectUid: string, deviceUid: string, r: HealthLogRow): HealthLogRecord => ({
  projectUid,
  deviceUid,
  whenSec: r.when_sec,
  alert: bool(r.alert),
  text: r.text,
  type: r.type,
});

export interface EventUsageSqlRow {
  key: string;
  period: number;
  device: string;
  file: string;
  billable: number;
  n: number;
}

export const eventUsage = (r: EventUsageSqlRow): EventUsageRow => ({
  key: r.key,
  periodSec: r.period,
  deviceUid: r.device,
  file: r.file,
  billable: bool(r.billable),
  events: r.n,
});

export interface SessionUsageSqlRow {
  key: string;
  period: number;
  device: string;
  transport: string;
  iccid: string;
  n: number;
  first: number;
  tls: number;
  sent: number;
  rcvd: number;
}

export const sessionUsage = (r: SessionUsageSqlRow): SessionUsageRow => ({
  key: r.key,
  periodSec: r.period,
  deviceUid: r.device,
  transport: r.transport,
  iccid: r.iccid,
  sessions: r.n,
  firstSyncSessions: r.first,
  tlsSessions: r.tls,
  bytesSent: r.sent,
  bytesReceived: r.rcvd,
});

export interface HealthUsageSqlRow {
  key: string;
  period: number;
  device: string;
  boots: number;
  dfus: number;
}

export const healthUsage = (r: HealthUsageSqlRow): HealthUsageRow => ({
  key: r.key,
  periodSec: r.period,
  deviceUid: r.device,
  boots: r.boots,
  firmwareUpdates: r.dfus,
});
