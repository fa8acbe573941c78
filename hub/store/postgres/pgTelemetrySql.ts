import type { UsagePeriod } from "../records.js";
import type { EventDialect } from "../sqlite/telemetrySql.js";
import type { UsageDialect } from "../sqlite/usageSql.js";

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

/** PostgreSQL's usage dialect: the usage reports are usageSql.ts's, built with it. */
export const PG_USAGE: UsageDialect = {
  ...PG_EVENTS,
  doc,
  periodStart,
  eventSecond: "floor(e.received)::bigint",
  counter,
  transportKind,
  iccid: (d) => `(CASE WHEN ${typeOf(d, "iccid")} = 'string' THEN ${at(d, "iccid")} ELSE '' END)`,
  tlsCount: (d) =>
    `count(*) FILTER (WHERE ${typeOf(d, "tls")} IN ('number', 'boolean') AND ${at(d, "tls")} IN ('1', 'true'))`,
};

/** org, from ms, to ms: rows day (days since the epoch), n (billable events). */
export const BILLABLE_EVENTS_BY_DAY = `SELECT floor(e.received * 1000 / 86400000)::bigint AS day, count(*) AS n
       FROM events e JOIN projects p ON p.uid = e.project_uid
       WHERE p.org_uid = ? AND e.billable = 1 AND e.received * 1000 >= ? AND e.received * 1000 < ?
       GROUP BY day`;
