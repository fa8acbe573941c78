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
import {
  ADD_PROJECT_KEY,
  cursorQuery,
  EVENT,
  EVENT_SEQ,
  INSERT_EVENT,
  LATEST_KEYED_EVENTS,
  listQuery,
  PROJECT_KEY,
} from "./eventSql.js";
import { INSERT_HEALTH_LOG, listHealthLog, LIST_SESSIONS, UPSERT_SESSION } from "./sessionSql.js";
import { int, type SqliteConnection } from "./SqliteConnection.js";
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
} from "./telemetryRows.js";
import type { Sql } from "./telemetrySql.js";
import {
  BILLABLE_EVENTS_BY_DAY,
  DAY_MS,
  eventUsageQuery,
  healthUsageQuery,
  sessionUsageQuery,
} from "./usageSql.js";

/** Where it was before the split (telemetryRows.ts holds it). */
export { isBillableFile } from "./telemetryRows.js";

/**
 * Events, sessions and the health log, and the usage counted from them. The SQL text is in
 * eventSql.ts, sessionSql.ts and usageSql.ts (with what they share in telemetrySql.ts), the rows'
 * mapping in telemetryRows.ts.
 */
export class SqliteTelemetryStore implements TelemetryStore {
  constructor(private readonly sql: SqliteConnection) {}

  // --- events ---------------------------------------------------------------------------------

  async addEvent(event: EventRecord): Promise<boolean> {
    const [stored] = await this.addEvents([event]);
    return stored === true;
  }

  async addEvents(events: readonly EventRecord[]): Promise<boolean[]> {
    // No named closure here: under tsx (esbuild's keepNames) each one made is named anew by
    // Object.defineProperty, a few microseconds apiece, and a session stores events three times.
    if (events.length === 1) {
      const e = events[0]!;
      return [this.#insertEvent(e, this.#projectKey(e.projectUid), int(isBillableFile(e.file)))];
    }
    // A batch's events are mostly of one notefile and one project: whether it is billed, and the
    // project's key (the events' indexes lead with it), are worked out once for each.
    const billable = new Map<string, number>();
    const keys = new Map<string, number>();
    return this.sql.allOrNothing(() =>
      events.map((e) => {
        let key = keys.get(e.projectUid);
        if (key === undefined) keys.set(e.projectUid, (key = this.#projectKey(e.projectUid)));
        let billed = billable.get(e.file);
        if (billed === undefined) billable.set(e.file, (billed = int(isBillableFile(e.file))));
        return this.#insertEvent(e, key, billed);
      }),
    );
  }

  /** Stores `e` under its project's `key`, `billable` (0 or 1); false when its uid was stored before. */
  #insertEvent(e: EventRecord, key: number, billable: number): boolean {
    return (
      this.sql.run(
        INSERT_EVENT,
        e.uid,
        e.projectUid,
        key,
        e.deviceUid,
        e.sessionUid,
        e.file,
        e.received,
        e.whenSec,
        billable,
        flat(e.dataText) ?? JSON.stringify(e.data),
      ).changes > 0
    );
  }

  /**
   * The project's key, given it now if it has none: read through the connection's cache, which a
   * rollback of the transaction that gave it empties (never a key the database does not hold).
   */
  #projectKey(projectUid: string): number {
    const known = this.sql.cachedGet<{ key: number }>(PROJECT_KEY, projectUid);
    if (known) return known.key;
    this.sql.run(ADD_PROJECT_KEY, projectUid);
    return this.sql.get<{ key: number }>(PROJECT_KEY, projectUid)!.key;
  }

  async latestEvents(projectUid: string, deviceUid: string): Promise<EventRecord[]> {
    return this.sql
      .all<EventRow>(LATEST_KEYED_EVENTS, projectUid, deviceUid, projectUid, deviceUid)
      .map(event);
  }

  async getEvent(projectUid: string, uid: string): Promise<EventRecord | undefined> {
    const row = this.sql.get<EventRow>(EVENT, uid, projectUid);
    return row && event(row);
  }

  async listEvents(
    projectUid: string,
    filter: EventFilter,
    order: EventOrder,
    page: Page,
  ): Promise<PageResult<EventRecord>> {
    const query = listQuery(projectUid, filter, order, page);
    const rows = this.sql.all<EventRow>(query.text, ...query.params);
    return { items: rows.slice(0, page.limit).map(event), hasMore: rows.length > page.limit };
  }

  async eventsFromCursor(
    projectUid: string,
    filter: EventFilter,
    query: EventCursorQuery,
  ): Promise<EventCursorPage> {
    const sql = this.#cursorQuery(projectUid, filter, query);
    const rows = this.sql.all<EventRow>(sql.text, ...sql.params);
    return {
      items: rows.slice(0, query.limit).map(event),
      next: rows.length > query.limit ? rows[query.limit]!.uid : null,
    };
  }

  #cursorQuery(projectUid: string, filter: EventFilter, query: EventCursorQuery): Sql {
    // The rowid is the order the hub stored the events in; an unknown cursor is ignored.
    const at =
      query.cursor === null ? undefined : this.sql.get<{ seq: number }>(EVENT_SEQ, query.cursor, projectUid);
    return cursorQuery(projectUid, filter, query, at?.seq);
  }

  /**
   * The plan SQLite makes for a `listEvents` or `eventsFromCursor` query (tests and benchmarks
   * check that pages are read through an index, never sorted whole).
   */
  async planOf(
    projectUid: string,
    filter: EventFilter,
    query: { order: EventOrder; page: Page } | { cursor: EventCursorQuery },
  ): Promise<string[]> {
    const sql =
      "cursor" in query
        ? this.#cursorQuery(projectUid, filter, query.cursor)
        : listQuery(projectUid, filter, query.order, query.page);
    return this.sql
      .all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql.text}`, ...sql.params)
      .map((r) => r.detail);
  }

  // --- usage ----------------------------------------------------------------------------------

  async eventUsage(projectUid: string, q: UsageQuery): Promise<EventUsageRow[]> {
    const query = eventUsageQuery(projectUid, q);
    return this.sql.all<EventUsageSqlRow>(query.text, ...query.params).map(eventUsage);
  }

  async sessionUsage(projectUid: string, q: UsageQuery): Promise<SessionUsageRow[]> {
    const query = sessionUsageQuery(projectUid, q);
    return this.sql.all<SessionUsageSqlRow>(query.text, ...query.params).map(sessionUsage);
  }

  async healthUsage(projectUid: string, q: UsageQuery): Promise<HealthUsageRow[]> {
    const query = healthUsageQuery(projectUid, q);
    return this.sql.all<HealthUsageSqlRow>(query.text, ...query.params).map(healthUsage);
  }

  async billableEventsByDay(orgUid: string, fromMs: number, toMs: number): Promise<Map<number, number>> {
    const rows = this.sql.all<{ day: number; n: number }>(BILLABLE_EVENTS_BY_DAY, orgUid, fromMs, toMs);
    return new Map(rows.map((r) => [r.day * DAY_MS, r.n]));
  }

  // --- sessions and the health log ------------------------------------------------------------

  async addSession(s: SessionRecord): Promise<void> {
    this.sql.run(
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
    const rows = this.sql.all<SessionRow>(
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
    this.sql.run(
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
    return this.sql
      .all<HealthLogRow>(
        listHealthLog(types),
        projectUid,
        deviceUid,
        filter.startSec ?? Number.MIN_SAFE_INTEGER,
        filter.endSec ?? Number.MAX_SAFE_INTEGER,
        ...(types ?? []),
      )
      .map((r) => healthLog(projectUid, deviceUid, r));
  }
}

/**
 * `text` made flat in V8 before it is bound: an event's text is written by templates, a string of
 * many pieces, which better-sqlite3 binds about 2 µs slower (400 characters) than the flat string
 * that reading one character here makes of it (20,000 inserts: 136-157 ms against 95-120).
 */
function flat(text: string | undefined): string | undefined {
  if (text !== undefined && text.length > 0) text.charCodeAt(text.length >> 1);
  return text;
}
