import type { EventCursorQuery, EventFilter, EventOrder, EventSortKey, Page } from "../records.js";
import { ofProject, SQLITE_EVENTS, type EventDialect, type Sql } from "./telemetrySql.js";

// The SQL of the events table: the insert, the look-ups, and the pages of a filtered list. The
// lists are built for a dialect (SQLite's by default; PostgreSQL's in hub/store/postgres).

/**
 * uid, project, project key (PROJECT_KEY), device, session, file, received, captured, billable,
 * data: an event already stored is left.
 */
export const INSERT_EVENT = `INSERT INTO events (uid, project_uid, project_key, device_uid, session_uid, file, received, captured, billable, data)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (uid) DO NOTHING`;

/** project: its key, the small integer that leads each of the events' indexes (none: no events yet). */
export const PROJECT_KEY = "SELECT key FROM project_keys WHERE uid = ?";

/** project: gives it a key if it has none. */
export const ADD_PROJECT_KEY = "INSERT INTO project_keys (uid) VALUES (?) ON CONFLICT (uid) DO NOTHING";

/**
 * project, device, project, device: the latest event of each of the device's notefiles (the one
 * received last; of those received together, the greatest UID). Each file's latest time comes from
 * the device's entries of events_device, each latest event then from its project and time
 * (events_project): the project's other events are never read. The device's term in the subquery
 * is written so that no index can serve it: SQLite (without statistics) would otherwise read the
 * device's entries again for each file instead of the few events of that time. The project is
 * found by `column`: its UID (PostgreSQL), or its key (SQLite, whose indexes lead with it).
 */
const latestEvents = (column: "project_uid" | "project_key"): string => {
  const project = (alias: string) =>
    column === "project_key" ? ofProject(alias) : `${alias}.project_uid = ?`;
  return `WITH latest AS (
           SELECT file, max(received) AS received FROM events WHERE ${project("events")} AND device_uid = ? GROUP BY file)
         SELECT e.* FROM latest l CROSS JOIN events e
         WHERE ${project("e")} AND e.received = l.received AND e.device_uid = ? AND e.file = l.file
           AND e.uid = (SELECT max(e2.uid) FROM events e2 WHERE e2.${column} = e.${column}
             AND e2.received = l.received AND e2.file = l.file AND (e2.device_uid = e.device_uid) = TRUE)
         ORDER BY e.received DESC, e.uid`;
};

/** `latestEvents` by the project's UID (PostgreSQL). */
export const LATEST_EVENTS = latestEvents("project_uid");

/** `latestEvents` by the project's key (SQLite). */
export const LATEST_KEYED_EVENTS = latestEvents("project_key");

/** uid, project */
export const EVENT = "SELECT * FROM events WHERE uid = ? AND project_uid = ?";

/** uid, project: where the event stands in the order the hub stored the events in. */
export const EVENT_SEQ = "SELECT rowid AS seq FROM events WHERE uid = ? AND project_uid = ?";

/** The WHERE clause of an events query (alias `e`). */
function eventConditions(projectUid: string, f: EventFilter, d: EventDialect): Sql {
  const { inList, inFleet, member } = d;
  const text = [d.project ?? "e.project_uid = ?"];
  const params: unknown[] = [projectUid];
  const list = (column: string, values: string[] | undefined): void => {
    if (values === undefined || values.length === 0) return;
    text.push(inList(column));
    params.push(d.listValue(values));
  };
  list("e.device_uid", f.deviceUids);
  list(member("e", "sn"), f.serialNumbers);
  list("e.session_uid", f.sessionUids);
  list("e.uid", f.eventUids);
  list("e.file", f.files);
  if (f.fleetUids && f.fleetUids.length > 0) {
    text.push(`EXISTS (SELECT 1 FROM fleets f WHERE f.project_uid = e.project_uid
      AND ${inList("f.uid")} AND ${inFleet("e", "f.uid")})`);
    params.push(d.listValue(f.fleetUids));
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
const sortTerms = (member: EventDialect["member"]): Record<EventSortKey, string[]> => ({
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
});

function orderBy(order: EventOrder, d: EventDialect): string {
  const direction = order.descending ? " DESC" : "";
  return [...sortTerms(d.member)[order.by], `e.${d.arrival}`].map((t) => `${t}${direction}`).join(", ");
}

/** A page of the filtered events in the order asked, with one row more to tell whether more follow. */
export function listQuery(
  projectUid: string,
  filter: EventFilter,
  order: EventOrder,
  page: Page,
  d: EventDialect = SQLITE_EVENTS,
): Sql {
  const where = eventConditions(projectUid, filter, d);
  return {
    text: `SELECT e.* FROM events e WHERE ${where.text} ORDER BY ${orderBy(order, d)} LIMIT ? OFFSET ?`,
    params: [...where.params, page.limit + 1, page.offset],
  };
}

/**
 * A page of the filtered events in the order the hub stored them, from the cursor's event (`at`,
 * its EVENT_SEQ; undefined: from the first), with one row more: the next page's cursor.
 */
export function cursorQuery(
  projectUid: string,
  filter: EventFilter,
  query: EventCursorQuery,
  at: number | undefined,
  d: EventDialect = SQLITE_EVENTS,
): Sql {
  const where = eventConditions(projectUid, filter, d);
  const seq = `e.${d.arrival}`;
  const from = at === undefined ? "" : ` AND ${seq} ${query.descending ? "<=" : ">="} ?`;
  return {
    text: `SELECT e.* FROM events e WHERE ${where.text}${from}
       ORDER BY ${seq}${query.descending ? " DESC" : ""} LIMIT ?`,
    params: [...where.params, ...(at === undefined ? [] : [at]), query.limit + 1],
  };
}
