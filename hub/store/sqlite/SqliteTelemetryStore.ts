import type { TelemetryStore } from "../HubStore.js";
import type { EventRecord, HealthLogRecord, Page, PageResult, SessionRecord } from "../records.js";
import { bool, int, type SqliteConnection } from "./SqliteConnection.js";
import { storedJson } from "./storedJson.js";

/** Notefiles whose events the service does not bill (spec: UsageEventsData platform events). */
const PLATFORM_FILES = ["_log", "_session", "_health", "_geolocate"];

export function isBillableFile(file: string): boolean {
  const stem = file.replace(/\.[^.]*$/, "");
  return !PLATFORM_FILES.includes(stem);
}

const DAY_MS = 86_400_000;

interface EventRow {
  uid: string;
  project_uid: string;
  device_uid: string;
  session_uid: string | null;
  file: string;
  received: number;
  captured: number;
  data: string;
}

interface SessionRow {
  uid: string;
  device_uid: string;
  project_uid: string;
  began: number;
  ended: number | null;
  first_sync: number;
  data: string;
}

const event = (r: EventRow): EventRecord => ({
  uid: r.uid,
  projectUid: r.project_uid,
  deviceUid: r.device_uid,
  sessionUid: r.session_uid,
  file: r.file,
  received: r.received,
  whenSec: r.captured,
  data: storedJson(r.data),
});

const session = (r: SessionRow): SessionRecord => ({
  uid: r.uid,
  deviceUid: r.device_uid,
  projectUid: r.project_uid,
  beganSec: r.began,
  endedSec: r.ended,
  firstSync: bool(r.first_sync),
  data: storedJson(r.data),
});

export class SqliteTelemetryStore implements TelemetryStore {
  constructor(private readonly sql: SqliteConnection) {}

  async addEvent(e: EventRecord): Promise<boolean> {
    const result = this.sql.run(
      `INSERT INTO events (uid, project_uid, device_uid, session_uid, file, received, captured, billable, data)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (uid) DO NOTHING`,
      e.uid,
      e.projectUid,
      e.deviceUid,
      e.sessionUid,
      e.file,
      e.received,
      e.whenSec,
      int(isBillableFile(e.file)),
      JSON.stringify(e.data),
    );
    return result.changes > 0;
  }

  async latestEvents(projectUid: string, deviceUid: string): Promise<EventRecord[]> {
    return this.sql
      .all<EventRow>(
        `SELECT e.* FROM events e WHERE e.project_uid = ? AND e.device_uid = ? AND e.uid = (
           SELECT e2.uid FROM events e2 WHERE e2.project_uid = e.project_uid AND e2.device_uid = e.device_uid
             AND e2.file = e.file
           ORDER BY e2.received DESC, e2.uid DESC LIMIT 1)
         ORDER BY e.received DESC, e.uid`,
        projectUid,
        deviceUid,
      )
      .map(event);
  }

  async billableEventsByDay(orgUid: string, fromMs: number, toMs: number): Promise<Map<number, number>> {
    const rows = this.sql.all<{ day: number; n: number }>(
      `SELECT CAST(e.received * 1000 / ${DAY_MS} AS INTEGER) AS day, count(*) AS n
       FROM events e JOIN projects p ON p.uid = e.project_uid
       WHERE p.org_uid = ? AND e.billable = 1 AND e.received * 1000 >= ? AND e.received * 1000 < ?
       GROUP BY day`,
      orgUid,
      fromMs,
      toMs,
    );
    return new Map(rows.map((r) => [r.day * DAY_MS, r.n]));
  }

  async addSession(s: SessionRecord): Promise<void> {
    this.sql.run(
      `INSERT INTO sessions (uid, device_uid, project_uid, began, ended, first_sync, data) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (uid) DO UPDATE SET ended = excluded.ended, data = excluded.data`,
      s.uid,
      s.deviceUid,
      s.projectUid,
      s.beganSec,
      s.endedSec,
      int(s.firstSync),
      JSON.stringify(s.data),
    );
  }

  async listSessions(
    projectUid: string,
    deviceUid: string,
    filter: { startSec?: number; endSec?: number; firstSyncOnly: boolean },
    page: Page,
  ): Promise<PageResult<SessionRecord>> {
    const rows = this.sql.all<SessionRow>(
      `SELECT * FROM sessions WHERE project_uid = ? AND device_uid = ? AND began >= ? AND began <= ?
        AND (first_sync = 1 OR ? = 0)
       ORDER BY began DESC, uid LIMIT ? OFFSET ?`,
      projectUid,
      deviceUid,
      filter.startSec ?? Number.MIN_SAFE_INTEGER,
      filter.endSec ?? Number.MAX_SAFE_INTEGER,
      int(filter.firstSyncOnly),
      page.limit + 1,
      page.offset,
    );
    return { items: rows.slice(0, page.limit).map(session), hasMore: rows.length > page.limit };
  }

  async addHealthLog(entry: HealthLogRecord): Promise<void> {
    this.sql.run(
      "INSERT INTO health_log (project_uid, device_uid, when_sec, alert, text, type) VALUES (?, ?, ?, ?, ?, ?)",
      entry.projectUid,
      entry.deviceUid,
      entry.whenSec,
      int(entry.alert),
      entry.text,
      entry.type,
    );
  }

  async listHealthLog(
    projectUid: string,
    deviceUid: string,
    filter: { startSec?: number; endSec?: number; types?: string[] },
  ): Promise<HealthLogRecord[]> {
    const types = filter.types && filter.types.length > 0 ? filter.types : null;
    const rows = this.sql.all<{ when_sec: number; alert: number; text: string; type: string }>(
      `SELECT when_sec, alert, text, type FROM health_log
       WHERE project_uid = ? AND device_uid = ? AND when_sec >= ? AND when_sec <= ?
       ${types ? `AND type IN (${types.map(() => "?").join(", ")})` : ""}
       ORDER BY when_sec DESC, id DESC`,
      projectUid,
      deviceUid,
      filter.startSec ?? Number.MIN_SAFE_INTEGER,
      filter.endSec ?? Number.MAX_SAFE_INTEGER,
      ...(types ?? []),
    );
    return rows.map((r) => ({
      projectUid,
      deviceUid,
      whenSec: r.when_sec,
      alert: bool(r.alert),
      text: r.text,
      type: r.type,
    }));
  }
}
