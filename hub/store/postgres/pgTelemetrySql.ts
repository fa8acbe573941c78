import type { UsagePeriod, UsageQuery } from "../records.js";
import type { EventDialect, Sql } from "../sqlite/telemetrySql.js";

// The telemetry SQL that differs on PostgreSQL: reading members of stored documents (text, read
// through hub_doc so that a damaged row reads as {}), list parameters as arrays, and the usage
// reports. (The events' list queries themselves are eventSql.ts's, built with PG_EVENTS.)

/** The stored document of the row aliased `alias`, as jsonb ({} when it is not a JSON object). */
export const doc = (alias: string): string => `hub_doc(${alias}.data)`;

/** A member of a document (a constant dotted path, never caller input) as text, NULL when absent. */
const at = (d: string, path: string): string => `(${d} #>> '{${path.split(".").join(",")}}')`;

/** The JSON type of a member ('string', 'number', 'array', ...), NULL when absent. */
const typeOf = (d: string, path: string): string => `jsonb_typeof(${d} #> '{${path.split(".").join(",")}}')`;

/** True when the row belongs to the fleet: the fleets its document lists, or, when none, its device's now. */
export function inFleet(alias: string, fleet: string): string {
  const d = doc(alias);
  return `(CASE WHEN ${typeOf(d, "fleets")} = 'array'
      THEN EXISTS (SELECT 1 FROM jsonb_array_elements_text(${d} -> 'fleets') j WHERE j = ${fleet})
      ELSE EXISTS (SELECT 1 FROM device_fleets df WHERE df.device_uid = ${alias}.device_uid AND df.fleet_uid = ${fleet})
    END)`;
}

export const PG_EVENTS: EventDialect = {
  member: (alias, path) => at(doc(alias), path),
  inFleet,
  inList: (column) => `${column} = ANY(?)`,
  listValue: (values) => [...values],
  arrival: "seq",
};

const inList = PG_EVENTS.inList;

/** The start of the UTC period holding `t` (integer epoch seconds, in SQL); weeks start on Monday. */
export function periodStart(period: UsagePeriod, t: string): string {
  switch (period) {
    case "day":
      return `(${t} - mod(${t}, 86400))`;
    case "week":
      // 1970-01-01 was a Thursday: day d is (d + 3) % 7 days after a Monday.
      return `((div(${t}, 86400) - mod(div(${t}, 86400) + 3, 7)) * 86400)`;
    case "month":
      return `extract(epoch FROM date_trunc('month', to_timestamp(${t}) AT TIME ZONE 'UTC'))::bigint`;
  }
}

/** A counter member of a document: its integer value when it is a number, else 0. */
const counter = (d: string, path: string): string =>
  `(CASE WHEN ${typeOf(d, path)} = 'number' THEN greatest(0, trunc(${at(d, path)}::numeric)::bigint) ELSE 0 END)`;

/** The kind of transport of a session (as usageSql.ts says it). */
function transportKind(d: string): string {
  const tr = at(d, "transport");
  const rat = `lower(coalesce(${at(d, "rat")}, ''))`;
  return `(CASE
    WHEN ${typeOf(d, "transport")} = 'string' AND ${tr} <> '' THEN lower(split_part(${tr}, ':', 1))
    WHEN ${rat} = 'wifi' THEN 'wifi'
    WHEN ${rat} = 'ntn' THEN 'ntn'
    WHEN ${rat} LIKE 'lora%' THEN 'lorawan'
    ELSE 'cell'
  END)`;
}

interface UsageKey {
  key: string;
  join: string;
  params: unknown[];
}

const belongsTo = (alias: string, fleet: string, fleetsOf: "record" | "device"): string =>
  fleetsOf === "record"
    ? inFleet(alias, fleet)
    : `EXISTS (SELECT 1 FROM device_fleets df WHERE df.device_uid = ${alias}.device_uid AND df.fleet_uid = ${fleet})`;

function usageKey(q: UsageQuery, alias: string, fleetsOf: "record" | "device"): UsageKey {
  if (q.aggregate === "device") return { key: `${alias}.device_uid`, join: "", params: [] };
  if (q.aggregate === "project") return { key: "''", join: "", params: [] };
  const filtered = q.fleetUids !== undefined && q.fleetUids.length > 0;
  return {
    key: "f.uid",
    join: `JOIN fleets f ON f.project_uid = ${alias}.project_uid${filtered ? ` AND ${inList("f.uid")}` : ""} AND ${belongsTo(alias, "f.uid", fleetsOf)}`,
    params: filtered ? [q.fleetUids] : [],
  };
}

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
    params.push(q.deviceUids);
  }
  if (q.fleetUids && q.fleetUids.length > 0 && q.aggregate !== "fleet") {
    text.push(`EXISTS (SELECT 1 FROM fleets f2 WHERE f2.project_uid = ${alias}.project_uid
      AND ${inList("f2.uid")} AND ${belongsTo(alias, "f2.uid", fleetsOf)})`);
    params.push(q.fleetUids);
  }
  return { text: text.join(" AND "), params };
}

/** Rows: key, period, device, file, billable (0 or 1), n (events). */
export function eventUsageQuery(projectUid: string, q: UsageQuery): Sql {
  const t = "floor(e.received)::bigint";
  const key = usageKey(q, "e", "record");
  const where = usageConditions(projectUid, q, "e", "e.received", "record");
  const files = q.files && q.files.length > 0;
  return {
    text: `SELECT ${key.key} AS key, ${periodStart(q.period, t)} AS period, e.device_uid AS device, e.file AS file,
         max(e.billable) AS billable, count(*) AS n
       FROM events e ${key.join}
       WHERE ${where.text}${files ? ` AND ${inList("e.file")}` : ""}
       GROUP BY 1, 2, 3, 4`,
    params: [...key.params, ...where.params, ...(files ? [q.files] : [])],
  };
}

/** Rows: key, period, device, transport, iccid, n, first, tls, sent, rcvd. */
export function sessionUsageQuery(projectUid: string, q: UsageQuery): Sql {
  const d = doc("s");
  const key = usageKey(q, "s", "record");
  const where = usageConditions(projectUid, q, "s", "s.began", "record");
  return {
    text: `SELECT ${key.key} AS key, ${periodStart(q.period, "s.began")} AS period, s.device_uid AS device,
         ${transportKind(d)} AS transport,
         (CASE WHEN ${typeOf(d, "iccid")} = 'string' THEN ${at(d, "iccid")} ELSE '' END) AS iccid,
         count(*) AS n, sum(s.first_sync) AS first,
         count(*) FILTER (WHERE ${typeOf(d, "tls")} IN ('number', 'boolean') AND ${at(d, "tls")} IN ('1', 'true')) AS tls,
         sum(${counter(d, "period.bytes_sent")}) AS sent, sum(${counter(d, "period.bytes_rcvd")}) AS rcvd
       FROM sessions s ${key.join}
       WHERE ${where.text}
       GROUP BY 1, 2, 3, 4, 5`,
    params: [...key.params, ...where.params],
  };
}

/** Rows: key, period, device, boots, dfus. */
export function healthUsageQuery(projectUid: string, q: UsageQuery): Sql {
  const key = usageKey(q, "h", "device");
  const where = usageConditions(projectUid, q, "h", "h.when_sec", "device");
  return {
    text: `SELECT ${key.key} AS key, ${periodStart(q.period, "h.when_sec")} AS period, h.device_uid AS device,
         count(*) FILTER (WHERE h.type = 'boot') AS boots, count(*) FILTER (WHERE h.type = 'dfu_completed') AS dfus
       FROM health_log h ${key.join}
       WHERE ${where.text} AND h.type IN ('boot', 'dfu_completed')
       GROUP BY 1, 2, 3`,
    params: [...key.params, ...where.params],
  };
}

/** org, from ms, to ms: rows day (days since the epoch), n (billable events). */
export const BILLABLE_EVENTS_BY_DAY = `SELECT floor(e.received * 1000 / 86400000)::bigint AS day, count(*) AS n
       FROM events e JOIN projects p ON p.uid = e.project_uid
       WHERE p.org_uid = ? AND e.billable = 1 AND e.received * 1000 >= ? AND e.received * 1000 < ?
       GROUP BY day`;
