import { periodStart } from "./periodStart.js";
import type { UsagePeriod, UsageQuery } from "../records.js";
import { doc, SQLITE_EVENTS, type EventDialect, type Sql } from "./telemetrySql.js";

// The SQL of the usage reports: events, sessions and health log entries counted per key (device,
// fleet or project) and period, built for a dialect (SQLite's by default; PostgreSQL's is
// PG_USAGE in hub/store/postgres/pgTelemetrySql.ts).

/** What the usage reports need of a database's dialect beyond the events' lists. */
export interface UsageDialect extends EventDialect {
  /** The stored document of the row aliased `alias`. */
  doc(alias: string): string;
  /** The start of the UTC period holding `t` (integer epoch seconds, in SQL). */
  periodStart(period: UsagePeriod, t: string): string;
  /** An event row's (alias `e`) arrival as integer epoch seconds. */
  eventSecond: string;
  /** A counter member of a document: its integer value when it is a number, else 0. */
  counter(d: string, path: string): string;
  /** The kind of transport of a session document (see transportKind). */
  transportKind(d: string): string;
  /** The session document's `iccid` when it is a string, else ''. */
  iccid(d: string): string;
  /** How many of the group's sessions say `tls` (true or 1). */
  tlsCount(d: string): string;
}

export const DAY_MS = 86_400_000;

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

/** SQLite's usage dialect. */
export const SQLITE_USAGE: UsageDialect = {
  ...SQLITE_EVENTS,
  doc,
  periodStart,
  eventSecond: "CAST(e.received AS INTEGER)",
  counter,
  transportKind,
  iccid: (d) =>
    `(CASE WHEN json_type(${d}, '$.iccid') = 'text' THEN json_extract(${d}, '$.iccid') ELSE '' END)`,
  tlsCount: (d) => `sum(coalesce(json_extract(${d}, '$.tls'), 0) = 1)`,
};

/** How a usage query's records are keyed: the key column, and the join (with its parameters) it needs. */
interface UsageKey {
  key: string;
  join: string;
  params: unknown[];
}

/** True when the row aliased `alias` belongs to the fleet `fleet`: by its document's fleets, or its device's now. */
const belongsTo = (alias: string, fleet: string, fleetsOf: "record" | "device", d: UsageDialect): string =>
  fleetsOf === "record"
    ? d.inFleet(alias, fleet)
    : `EXISTS (SELECT 1 FROM device_fleets df WHERE df.device_uid = ${alias}.device_uid AND df.fleet_uid = ${fleet})`;

/**
 * The usage key of record rows aliased `alias`: the device, each of the record's fleets (only
 * those of the query's fleet filter, when it has one), or "" for the project. A health log entry
 * has no document: its fleets are its device's now.
 */
function usageKey(q: UsageQuery, alias: string, fleetsOf: "record" | "device", d: UsageDialect): UsageKey {
  if (q.aggregate === "device") return { key: `${alias}.device_uid`, join: "", params: [] };
  if (q.aggregate === "project") return { key: "''", join: "", params: [] };
  const filtered = q.fleetUids !== undefined && q.fleetUids.length > 0;
  return {
    key: "f.uid",
    join: `JOIN fleets f ON f.project_uid = ${alias}.project_uid${filtered ? ` AND ${d.inList("f.uid")}` : ""} AND ${belongsTo(alias, "f.uid", fleetsOf, d)}`,
    params: filtered ? [d.listValue(q.fleetUids!)] : [],
  };
}

/**
 * The conditions every usage query shares: project (`project`, else by the project_uid column),
 * time range, devices, fleets (alias `alias`, time `t`).
 */
function usageConditions(
  projectUid: string,
  q: UsageQuery,
  alias: string,
  t: string,
  fleetsOf: "record" | "device",
  d: UsageDialect,
  project = `${alias}.project_uid = ?`,
): Sql {
  const text = [project, `${t} >= ?`, `${t} < ?`];
  const params: unknown[] = [projectUid, q.fromSec, q.toSec];
  if (q.deviceUids && q.deviceUids.length > 0) {
    text.push(d.inList(`${alias}.device_uid`));
    params.push(d.listValue(q.deviceUids));
  }
  // A fleet aggregate's join already keeps only the filter's fleets.
  if (q.fleetUids && q.fleetUids.length > 0 && q.aggregate !== "fleet") {
    text.push(`EXISTS (SELECT 1 FROM fleets f2 WHERE f2.project_uid = ${alias}.project_uid
      AND ${d.inList("f2.uid")} AND ${belongsTo(alias, "f2.uid", fleetsOf, d)})`);
    params.push(d.listValue(q.fleetUids));
  }
  return { text: text.join(" AND "), params };
}

/** Rows: key, period, device, file, billable (0 or 1), n (events). */
export function eventUsageQuery(projectUid: string, q: UsageQuery, d: UsageDialect = SQLITE_USAGE): Sql {
  const key = usageKey(q, "e", "record", d);
  const where = usageConditions(projectUid, q, "e", "e.received", "record", d, d.project);
  const files = q.files && q.files.length > 0;
  return {
    text: `SELECT ${key.key} AS key, ${d.periodStart(q.period, d.eventSecond)} AS period, e.device_uid AS device, e.file AS file,
         max(e.billable) AS billable, count(*) AS n
       FROM events e ${key.join}
       WHERE ${where.text}${files ? ` AND ${d.inList("e.file")}` : ""}
       GROUP BY 1, 2, 3, 4`,
    params: [...key.params, ...where.params, ...(files ? [d.listValue(q.files!)] : [])],
  };
}

/** Rows: key, period, device, transport, iccid, n (sessions), first, tls (sessions), sent, rcvd (bytes). */
export function sessionUsageQuery(projectUid: string, q: UsageQuery, d: UsageDialect = SQLITE_USAGE): Sql {
  const s = d.doc("s");
  const key = usageKey(q, "s", "record", d);
  const where = usageConditions(projectUid, q, "s", "s.began", "record", d);
  return {
    text: `SELECT ${key.key} AS key, ${d.periodStart(q.period, "s.began")} AS period, s.device_uid AS device,
         ${d.transportKind(s)} AS transport, ${d.iccid(s)} AS iccid,
         count(*) AS n, sum(s.first_sync) AS first, ${d.tlsCount(s)} AS tls,
         sum(${d.counter(s, "period.bytes_sent")}) AS sent, sum(${d.counter(s, "period.bytes_rcvd")}) AS rcvd
       FROM sessions s ${key.join}
       WHERE ${where.text}
       GROUP BY 1, 2, 3, 4, 5`,
    params: [...key.params, ...where.params],
  };
}

/** Rows: key, period, device, boots, dfus (completed firmware updates). */
export function healthUsageQuery(projectUid: string, q: UsageQuery, d: UsageDialect = SQLITE_USAGE): Sql {
  const key = usageKey(q, "h", "device", d);
  const where = usageConditions(projectUid, q, "h", "h.when_sec", "device", d);
  return {
    text: `SELECT ${key.key} AS key, ${d.periodStart(q.period, "h.when_sec")} AS period, h.device_uid AS device,
         count(*) FILTER (WHERE h.type = 'boot') AS boots, count(*) FILTER (WHERE h.type = 'dfu_completed') AS dfus
       FROM health_log h ${key.join}
       WHERE ${where.text} AND h.type IN ('boot', 'dfu_completed')
       GROUP BY 1, 2, 3`,
    params: [...key.params, ...where.params],
  };
}

/** org, from ms, to ms: rows day (days since the epoch), n (billable events). */
export const BILLABLE_EVENTS_BY_DAY = `SELECT CAST(e.received * 1000 / ${DAY_MS} AS INTEGER) AS day, count(*) AS n
       FROM projects p JOIN project_keys k ON k.uid = p.uid JOIN events e ON e.project_key = k.key
       WHERE p.org_uid = ? AND e.billable = 1 AND e.received * 1000 >= ? AND e.received * 1000 < ?
       GROUP BY day`;
