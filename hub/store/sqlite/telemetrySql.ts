// SQL pieces every telemetry query shares (events, sessions, the health log; SQLite's dialect).

/** A query's text and its parameters, in order. */
export interface Sql {
  text: string;
  params: unknown[];
}

// --- reading stored documents in SQL -------------------------------------------------------------
// SQLite's JSON functions throw on text that is not JSON, and a damaged row must never make a
// read fail (docs/hub.md, "Stored JSON"): every document is read through `doc`, which is "{}" for
// such a row, so its members read as NULL.

/** The stored document of the row aliased `alias`, or "{}" when it is not JSON. */
export const doc = (alias: string): string =>
  `(CASE WHEN json_valid(${alias}.data) THEN ${alias}.data ELSE '{}' END)`;

/** A member of the row's document (a constant path, never caller input), NULL when absent. */
export const member = (alias: string, path: string): string => `json_extract(${doc(alias)}, '$.${path}')`;

/**
 * True when the record (an event or session row) belongs to the fleet: the fleets its document
 * lists, or, when it lists none, its device's fleets now.
 */
export function inFleet(alias: string, fleet: string): string {
  const d = doc(alias);
  return `(CASE WHEN json_type(${d}, '$.fleets') = 'array'
      THEN EXISTS (SELECT 1 FROM json_each(${d}, '$.fleets') j WHERE j.value = ${fleet})
      ELSE EXISTS (SELECT 1 FROM device_fleets df WHERE df.device_uid = ${alias}.device_uid AND df.fleet_uid = ${fleet})
    END)`;
}

/**
 * The events of one project (alias `alias`; one parameter, its UID), by its key: an equality on a
 * constant subquery, which SQLite searches the events' indexes by. A project without a key has no
 * events.
 */
export const ofProject = (alias: string): string =>
  `${alias}.project_key = (SELECT key FROM project_keys WHERE uid = ?)`;

/** A list argument: one parameter (a JSON array) whatever its length. */
export const inList = (column: string): string => `${column} IN (SELECT value FROM json_each(?))`;

/** What the events' list queries (eventSql.ts) are built from, in one database's dialect. */
export interface EventDialect {
  /** A member of the row's document as SQL, NULL when absent. */
  member(alias: string, path: string): string;
  inFleet(alias: string, fleet: string): string;
  /** `column` is one of a list given as one parameter ... */
  inList(column: string): string;
  /** ... and that parameter's value. */
  listValue(values: readonly string[]): unknown;
  /** The column holding the order the hub stored the events in. */
  arrival: string;
  /** The condition that keeps one project's events (alias `e`; one parameter, its UID): `e.project_uid = ?` when absent. */
  project?: string;
}

export const SQLITE_EVENTS: EventDialect = {
  member,
  inFleet,
  inList,
  listValue: (values) => JSON.stringify(values),
  arrival: "rowid",
  project: ofProject("e"),
};
