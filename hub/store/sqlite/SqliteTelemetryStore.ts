import { periodStart } from "./periodStart.js";
import type { TelemetryStore } from "../HubStore.js";
import type {
  EventCursorPage,
  EventCursorQuery,
  EventFilter,
  EventOrder,
  EventRecord,
  EventSortKey,
  EventUsageRow,
  HealthLogRecord,
  HealthUsageRow,
  Page,
  PageResult,
  SessionRecord,
  SessionUsageRow,
  UsageQuery,
} from "../records.js";
import { bool, int, type SqliteConnection } from "./SqliteConnection.js";
import { storedJson } from "./storedJson.js";

/** Notefiles whose events the service does not bill (spec: UsageEventsData platform events). */
const PLATFORM_FILES = ["_log", "_session", "_health", "_geolocate"];

export function isBillableFile(file: string): boolean {
  const stem = file.replace(/\.[^.]*$/, "");
  return !PLATFORM_FILES.includes(stem);
}

const DAY_MS = 86_400_000;

// --- reading stored documents in SQL -------------------------------------------------------------
// SQLite's JSON functions throw on text that is not JSON, and a damaged row must never make a
// read fail (docs/hub.md, "Stored JSON"): every document is read through `doc`, which is "{}" for
// such a row, so its members read as NULL.

/** The stored document of the row aliased `alias`, or "{}" when it is not JSON. */
const doc = (alias: string): string =>
  `(CASE WHEN json_valid(${alias}.data) THEN ${alias}.data ELSE '{}' END)`;

/** A member of the row's document (a constant path, never caller input), NULL when absent. */
const member = (alias: string, path: string): string => `json_extract(${doc(alias)}, '$.${path}')`;

/**
 * True when the record (an event or session row) belongs to the fleet: the fleets its document
 * lists, or, when it lists none, its device's fleets now.
 */
function inFleet(alias: string, fleet: string): string {
  const d = doc(alias);
  return `(CASE WHEN json_type(${d}, '$.fleets') = 'array'
      THEN EXISTS (SELECT 1 FROM json_each(${d}, '$.fleets') j WHERE j.value = ${fleet})
      ELSE EXISTS (SELECT 1 FROM device_fleets df WHERE df.device_uid = ${alias}.device_uid AND df.fleet_uid = ${fleet})
    END)`;
}

/** A list argument: one parameter (a JSON array) whatever its length. */
const inList = (column: string): string => `${column} IN (SELECT value FROM json_each(?))`;

interface Sql {
  text: string;
  params: unknown[];
}

/** The WHERE clause of an events query (alias `e`). */
function eventConditions(projectUid: string, f: EventFilter): Sql {
  const text = ["e.project_uid = ?"];
  const params: unknown[] = [projectUid];
  const list = (column: string, values: string[] | undefined): void => {
    if (values === undefined || values.length === 0) return;
    text.push(inList(column));
    params.push(JSON.stringify(values));
  };
  list("e.device_uid", f.deviceUids);
  list(member("e", "sn"), f.serialNumbers);
  list("e.session_uid", f.sessionUids);
  list("e.uid", f.eventUids);
  list("e.file", f.files);
  if (f.fleetUids && f.fleetUids.length > 0) {
    text.push(`EXISTS (SELECT 1 FROM fleets f WHERE f.project_uid = e.project_uid
      AND ${inList("f.uid")} AND ${inFleet("e", "f.uid")})`);
    params.push(JSON.stringify(f.fleetUids));
  }
  if (f.systemFilesOnly) text.push("substr(e.file, 1, 1) = '_'");
  const column = f.dateType === "received" ? "e.received" : "e.captured";
  if (f.fromSec !== undefined) {
    text.push(`${column} >= ?`);
    params.push(f.fromSec);
  }
  if (f.toSec !== undefined) {
    text.push(`${column} < ?`);
    params.push(f.toSec);
  }
  return { text: text.join(" AND "), params };
}

/**
 * What each order sorts by. Ties go by the capture and receive times, then by the order the hub
 * stored the events in; the times' orders are exactly their indexes' (events_captured,
 * events_project), so a page is read from the index, never sorted.
 */
const SORT_TERMS: Record<EventSortKey, string[]> = {
  captured: ["e.captured", "e.received"],
  modified: ["e.received"],
  device_uid: ["e.device_uid", "e.captured", "e.received"],
  best_id: [
    `coalesce(${member("e", "best_id")}, ${member("e", "sn")}, e.device_uid)`,
    "e.captured",
    "e.received",
  ],
  device_serial: [`coalesce(${member("e", "sn")}, '')`, "e.captured", "e.received"],
  device_location: [`coalesce(${member("e", "where_location")}, '')`, "e.captured", "e.received"],
  tower_location: [`coalesce(${member("e", "tower_location")}, '')`, "e.captured", "e.received"],
  triangulated_location: [`coalesce(${member("e", "tri_location")}, '')`, "e.captured", "e.received"],
  best_location: [`coalesce(${member("e", "best_location")}, '')`, "e.captured", "e.received"],
};

function orderBy(order: EventOrder): string {
  const direction = order.descending ? " DESC" : "";
  return [...SORT_TERMS[order.by], "e.rowid"].map((t) => `${t}${direction}`).join(", ");
}

function listQuery(projectUid: string, filter: EventFilter, order: EventOrder, page: Page): Sql {
  const where = eventConditions(projectUid, filter);
  return {
    text: `SELECT e.* FROM events e WHERE ${where.text} ORDER BY ${orderBy(order)} LIMIT ? OFFSET ?`,
    params: [...where.params, page.limit + 1, page.offset],
  };
}

/** A counter member of a document: its integer value when it is a number, else 0. */
const counter = (d: string, path: string): string =>
  `(CASE WHEN json_type(${d}, '$.${path}') IN ('integer', 'real') THEN max(0, CAST(json_extract(${d}, '$.${path}') AS INTEGER)) ELSE 0 END)`;

/**
 * The kind of transport of a session: what `transport` names before its first colon (`cell`,
 * `wifi`, `ntn`, `lorawan`, ...), or, without one, what the radio access technology (`rat`) says.
 */
function transportKind(d: string): string {
  const tr = `json_extract(${d}, '$.transport')`;
  const rat = `lower(coalesce(json_extract(${d}, '$.rat'), ''))`;
  return `(CASE
    WHEN json_type(${d}, '$.transport') = 'text' AND ${tr} <> ''
      THEN lower(CASE WHEN instr(${tr}, ':') > 0 THEN substr(${tr}, 1, instr(${tr}, ':') - 1) ELSE ${tr} END)
    WHEN ${rat} = 'wifi' THEN 'wifi'
    WHEN ${rat} = 'ntn' THEN 'ntn'
    WHEN ${rat} LIKE 'lora%' THEN 'lorawan'
    ELSE 'cell'
  END)`;
}

/** How a usage query's records are keyed: the key column, and the join (with its parameters) it needs. */
interface UsageKey {
  key: string;
  join: string;
  params: unknown[];
}

/**
 * The usage key of record rows aliased `alias`: the device, each of the record's fleets (only
 * those of the query's fleet filter, when it has one), or "" for the project. A health log entry
 * has no document: its fleets are its device's now.
 */
function usageKey(q: UsageQuery, alias: string, fleetsOf: "record" | "device"): UsageKey {
  if (q.aggregate === "device") return { key: `${alias}.device_uid`, join: "", params: [] };
  if (q.aggregate === "project") return { key: "''", join: "", params: [] };
  const belongs =
    fleetsOf === "record"
      ? inFleet(alias, "f.uid")
      : `EXISTS (SELECT 1 FROM device_fleets df WHERE df.device_uid = ${alias}.device_uid AND df.fleet_uid = f.uid)`;
  const filtered = q.fleetUids !== undefined && q.fleetUids.length > 0;
  return {
    key: "f.uid",
    join: `JOIN fleets f ON f.project_uid = ${alias}.project_uid${filtered ? ` AND ${inList("f.uid")}` : ""} AND ${belongs}`,
    params: filtered ? [JSON.stringify(q.fleetUids)] : [],
  };
}

/** The conditions every usage query shares: project, time range, devices, fleets (alias `alias`, time `t`). */
function usageConditions(
  projectUid: string,
  q: UsageQuery,
  alias: string,
  t: string,
  fleetsOf: "record" | "device",
): Sql {
  const text = [`${alias}.project_uid = ?`, `${t} >= ?`, `${t} < ?`];
  const params: unknown[] = [projectUid, q.fromSec, q.toSec];
  if (q.deviceUids && q.deviceUids.length > 0) {
    text.push(inList(`${alias}.device_uid`));
    params.push(JSON.stringify(q.deviceUids));
  }
  // A fleet aggregate's join already keeps only the filter's fleets.
  if (q.fleetUids && q.fleetUids.length > 0 && q.aggregate !== "fleet") {
    const belongs =
      fleetsOf === "record"
        ? inFleet(alias, "f2.uid")
        : `EXISTS (SELECT 1 FROM device_fleets df WHERE df.device_uid = ${alias}.device_uid AND df.fleet_uid = f2.uid)`;
    text.push(`EXISTS (SELECT 1 FROM fleets f2 WHERE f2.project_uid = ${alias}.project_uid
      AND ${inList("f2.uid")} AND ${belongs})`);
    params.push(JSON.stringify(q.fleetUids));
  }
  return { text: text.join(" AND "), params };
}

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

  async addEvent(event: EventRecord): Promise<boolean> {
    const [stored] = await this.addEvents([event]);
    return stored === true;
  }

  async addEvents(events: readonly EventRecord[]): Promise<boolean[]> {
    const insert = (e: EventRecord) =>
      this.sql.run(
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
        e.dataText ?? JSON.stringify(e.data),
      ).changes > 0;
    if (events.length === 1) return [insert(events[0]!)];
    return this.sql.allOrNothing(() => events.map(insert));
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

  async getEvent(projectUid: string, uid: string): Promise<EventRecord | undefined> {
    const row = this.sql.get<EventRow>(
      "SELECT * FROM events WHERE uid = ? AND project_uid = ?",
      uid,
      projectUid,
    );
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
      query.cursor === null
        ? undefined
        : this.sql.get<{ seq: number }>(
            "SELECT rowid AS seq FROM events WHERE uid = ? AND project_uid = ?",
            query.cursor,
            projectUid,
          );
    const where = eventConditions(projectUid, filter);
    const from = at === undefined ? "" : ` AND e.rowid ${query.descending ? "<=" : ">="} ?`;
    return {
      text: `SELECT e.* FROM events e WHERE ${where.text}${from}
       ORDER BY e.rowid${query.descending ? " DESC" : ""} LIMIT ?`,
      params: [...where.params, ...(at === undefined ? [] : [at.seq]), query.limit + 1],
    };
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

  async eventUsage(projectUid: string, q: UsageQuery): Promise<EventUsageRow[]> {
    const t = "CAST(e.received AS INTEGER)";
    const key = usageKey(q, "e", "record");
    const where = usageConditions(projectUid, q, "e", "e.received", "record");
    const files = q.files && q.files.length > 0;
    const rows = this.sql.all<{
      key: string;
      period: number;
      device: string;
      file: string;
      billable: number;
      n: number;
    }>(
      `SELECT ${key.key} AS key, ${periodStart(q.period, t)} AS period, e.device_uid AS device, e.file AS file,
         max(e.billable) AS billable, count(*) AS n
       FROM events e ${key.join}
       WHERE ${where.text}${files ? ` AND ${inList("e.file")}` : ""}
       GROUP BY 1, 2, 3, 4`,
      ...key.params,
      ...where.params,
      ...(files ? [JSON.stringify(q.files)] : []),
    );
    return rows.map((r) => ({
      key: r.key,
      periodSec: r.period,
      deviceUid: r.device,
      file: r.file,
      billable: bool(r.billable),
      events: r.n,
    }));
  }

  async sessionUsage(projectUid: string, q: UsageQuery): Promise<SessionUsageRow[]> {
    const d = doc("s");
    const key = usageKey(q, "s", "record");
    const where = usageConditions(projectUid, q, "s", "s.began", "record");
    const rows = this.sql.all<{
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
    }>(
      `SELECT ${key.key} AS key, ${periodStart(q.period, "s.began")} AS period, s.device_uid AS device,
         ${transportKind(d)} AS transport,
         (CASE WHEN json_type(${d}, '$.iccid') = 'text' THEN json_extract(${d}, '$.iccid') ELSE '' END) AS iccid,
         count(*) AS n, sum(s.first_sync) AS first, sum(coalesce(json_extract(${d}, '$.tls'), 0) = 1) AS tls,
         sum(${counter(d, "period.bytes_sent")}) AS sent, sum(${counter(d, "period.bytes_rcvd")}) AS rcvd
       FROM sessions s ${key.join}
       WHERE ${where.text}
       GROUP BY 1, 2, 3, 4, 5`,
      ...key.params,
      ...where.params,
    );
    return rows.map((r) => ({
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
    }));
  }

  async healthUsage(projectUid: string, q: UsageQuery): Promise<HealthUsageRow[]> {
    const key = usageKey(q, "h", "device");
    const where = usageConditions(projectUid, q, "h", "h.when_sec", "device");
    const rows = this.sql.all<{ key: string; period: number; device: string; boots: number; dfus: number }>(
      `SELECT ${key.key} AS key, ${periodStart(q.period, "h.when_sec")} AS period, h.device_uid AS device,
         sum(h.type = 'boot') AS boots, sum(h.type = 'dfu_completed') AS dfus
       FROM health_log h ${key.join}
       WHERE ${where.text} AND h.type IN ('boot', 'dfu_completed')
       GROUP BY 1, 2, 3`,
      ...key.params,
      ...where.params,
    );
    return rows.map((r) => ({
      key: r.key,
      periodSec: r.period,
      deviceUid: r.device,
      boots: r.boots,
      firmwareUpdates: r.dfus,
    }));
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
