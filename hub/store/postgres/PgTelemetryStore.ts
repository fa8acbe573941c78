import type { TelemetryStore } from "../HubStore.js";
import type {
  EventCursorPage,
  EventCursorQuery,
  EventFilter,
  EventOrder,
  EventRecord,
  EventUsageRow,
  HealthLogRecord,
  HealthUsageRow,
  Page,
  PageResult,
  SessionRecord,
  SessionUsageRow,
  UsageQuery,
} from "../records.js";
import { cursorQuery, EVENT, LATEST_EVENTS, listQuery } from "../sqlite/eventSql.js";
import { DAY_MS, eventUsageQuery, healthUsageQuery, sessionUsageQuery } from "../sqlite/usageSql.js";
import { INSERT_HEALTH_LOG, listHealthLog, LIST_SESSIONS, UPSERT_SESSION } from "../sqlite/sessionSql.js";
import { int } from "../sqlite/SqliteConnection.js";
import {
  event,
  eventUsage,
  healthLog,
  healthUsage,
  isBillableFile,
  session,
  sessionUsage,
  type EventRow,
  type EventUsageSqlRow,
  type HealthLogRow,
  type HealthUsageSqlRow,
  type SessionRow,
  type SessionUsageSqlRow,
} from "../sqlite/telemetryRows.js";
import type { PgConnection } from "./PgConnection.js";
import { BILLABLE_EVENTS_BY_DAY, PG_EVENTS, PG_USAGE } from "./pgTelemetrySql.js";

/** The events of a batch, as arrays of their columns; returns the UIDs stored now. */
const INSERT_EVENTS = `INSERT INTO events (uid, project_uid, device_uid, session_uid, file, received, captured, billable, data)
  SELECT * FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::float8[], ?::bigint[], ?::int[], ?::text[])
  ON CONFLICT (uid) DO NOTHING RETURNING uid`;

/** device, uid, project: where the event stands in the order the hub stored the events in. */
const EVENT_SEQ = "SELECT seq FROM events WHERE uid = ? AND project_uid = ?";

/** Events, sessions and the health log, and the usage counted from them, on PostgreSQL. */
export class PgTelemetryStore implements TelemetryStore {
  constructor(private readonly sql: PgConnection) {}

  async addEvent(e: EventRecord): Promise<boolean> {
    const [stored] = await this.addEvents([e]);
    return stored === true;
  }

  async addEvents(events: readonly EventRecord[]): Promise<boolean[]> {
    if (events.length === 0) return [];
    // One statement for the batch: all or none, each column an array parameter.
    const rows = await this.sql.all<{ uid: string }>(
      INSERT_EVENTS,
      events.map((e) => e.uid),
      events.map((e) => e.projectUid),
      events.map((e) => e.deviceUid),
      events.map((e) => e.sessionUid),
      events.map((e) => e.file),
      events.map((e) => e.received),
      events.map((e) => e.whenSec),
      events.map((e) => int(isBillableFile(e.file))),
      events.map((e) => e.dataText ?? JSON.stringify(e.data)),
    );
    // An event given twice in one batch is stored once: the first of them.
    const stored = new Set(rows.map((r) => r.uid));
    return events.map((e) => stored.delete(e.uid));
  }

  async latestEvents(projectUid: string, deviceUid: string): Promise<EventRecord[]> {
    return (await this.sql.all<EventRow>(LATEST_EVENTS, projectUid, deviceUid, projectUid, deviceUid)).map(
      event,
    );
  }

  async getEvent(projectUid: string, uid: string): Promise<EventRecord | undefined> {
    const row = await this.sql.get<EventRow>(EVENT, uid, projectUid);
    return row && event(row);
  }

  async listEvents(
    projectUid: string,
    filter: EventFilter,
    order: EventOrder,
    page: Page,
  ): Promise<PageResult<EventRecord>> {
    const query = listQuery(projectUid, filter, order, page, PG_EVENTS);
    const rows = await this.sql.all<EventRow>(query.text, ...query.params);
    return { items: rows.slice(0, page.limit).map(event), hasMore: rows.length > page.limit };
  }

  async eventsFromCursor(
    projectUid: string,
    filter: EventFilter,
    query: EventCursorQuery,
  ): Promise<EventCursorPage> {
    // An unknown cursor is ignored.
    const at =
      query.cursor === null
        ? undefined
        : await this.sql.get<{ seq: number }>(EVENT_SEQ, query.cursor, projectUid);
    const sql = cursorQuery(projectUid, filter, query, at?.seq, PG_EVENTS);
    const rows = await this.sql.all<EventRow>(sql.text, ...sql.params);
    return {
      items: rows.slice(0, query.limit).map(event),
      next: rows.length > query.limit ? rows[query.limit]!.uid : null,
    };
  }

  async eventUsage(projectUid: string, q: UsageQuery): Promise<EventUsageRow[]> {
    const query = eventUsageQuery(projectUid, q, PG_USAGE);
    return (await this.sql.all<EventUsageSqlRow>(query.text, ...query.params)).map(eventUsage);
  }

  async sessionUsage(projectUid: string, q: UsageQuery): Promise<SessionUsageRow[]> {
    const query = sessionUsageQuery(projectUid, q, PG_USAGE);
    return (await this.sql.all<SessionUsageSqlRow>(query.text, ...query.params)).map(sessionUsage);
  }

  async healthUsage(projectUid: string, q: UsageQuery): Promise<HealthUsageRow[]> {
    const query = healthUsageQuery(projectUid, q, PG_USAGE);
    return (await this.sql.all<HealthUsageSqlRow>(query.text, ...query.params)).map(healthUsage);
  }

  async billableEventsByDay(orgUid: string, fromMs: number, toMs: number): Promise<Map<number, number>> {
    const rows = await this.sql.all<{ day: number; n: number }>(BILLABLE_EVENTS_BY_DAY, orgUid, fromMs, toMs);
    return new Map(rows.map((r) => [r.day * DAY_MS, r.n]));
  }

  async addSession(s: SessionRecord): Promise<void> {
    await this.sql.run(
      UPSERT_SESSION,
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
    const rows = await this.sql.all<SessionRow>(
      LIST_SESSIONS,
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
    await this.sql.run(
      INSERT_HEALTH_LOG,
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
    const rows = await this.sql.all<HealthLogRow>(
      listHealthLog(types),
      projectUid,
      deviceUid,
      filter.startSec ?? Number.MIN_SAFE_INTEGER,
      filter.endSec ?? Number.MAX_SAFE_INTEGER,
      ...(types ?? []),
    );
    return rows.map((r) => healthLog(projectUid, deviceUid, r));
  }
}
