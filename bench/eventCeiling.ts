// What the sync benchmarks share: one timed sync of a module's queued notes (after a warm-up), and
// the SQLite ceiling they are compared with (the very event rows stored, inserted again into a
// fresh hub database of the same schema by one prepared statement, in transactions of the sync's
// batch size). The ceiling's database is checkpointed as the hub's is (a worker thread copies the
// log: `{ checkpointer: true }`), or, with "inline", by SQLite in the commit that takes the log
// past 1000 pages (as before the checkpointer). bench/postgres.ts measures its own ceiling, on
// PostgreSQL, with the same columns.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JsonObject } from "../core/json.js";
import { SqliteConnection } from "../hub/store/sqlite/SqliteConnection.js";
import { BATCH_LIMITS } from "../protocol/messages.js";
import type { SimulatedModule } from "../runtime/SimulatedModule.js";
import { cpuClock } from "./threadCpu.js";

export type EventRow = Record<string, unknown>;

/** The columns of an event row the ceilings insert (the hub's events table, as the sync writes it). */
export const EVENT_COLUMNS = [
  "uid",
  "project_uid",
  "project_key",
  "device_uid",
  "session_uid",
  "file",
  "received",
  "captured",
  "billable",
  "data",
];

/** What one timed run took: seconds of wall time and milliseconds of CPU (see bench/threadCpu.ts). */
export interface Timed {
  readonly seconds: number;
  readonly cpuMs: number;
}

/**
 * One sync of `notes` notes queued in `sensors.qo`, timed, after a first sync and a warm-up
 * sync of a tenth as many (in a file of their own), so that the timed one runs compiled code on
 * both ends, as a hub that has been up for a while does. Throws unless the sync ended well.
 */
export async function timeOneSync(
  module: SimulatedModule["module"],
  notes: number,
  body: (i: number) => JsonObject,
): Promise<Timed> {
  await module.request({ req: "hub.sync" });
  await module.sync.idle();
  for (let i = 0; i < notes / 10; i++)
    await module.request({ req: "note.add", file: "warmup.qo", body: body(i) });
  await module.request({ req: "hub.sync" });
  await module.sync.idle();
  for (let i = 0; i < notes; i++) {
    const reply = await module.request({ req: "note.add", file: "sensors.qo", body: body(i) });
    if (reply?.["err"]) throw new Error(String(reply["err"]));
  }
  const cpu = cpuClock();
  const cpuFrom = cpu.now();
  const started = performance.now();
  await module.request({ req: "hub.sync" });
  await module.sync.idle();
  const seconds = (performance.now() - started) / 1000;
  const cpuMs = cpu.now() - cpuFrom;
  const status = await module.request({ req: "hub.sync.status" });
  if (!String(status?.["status"]).includes("{sync-end}"))
    throw new Error(`sync failed: ${JSON.stringify(status)}`);
  return { seconds, cpuMs };
}

/** How the ceiling's database copies its log: as the hub's (a worker thread), or in the commit. */
export type CeilingCheckpoints = "background" | "inline";

/** Rows per second of `rows` inserted into a fresh hub database (SQLite, on the temp disk), batch by batch. */
export async function rawSqliteEventRate(
  rows: readonly EventRow[],
  checkpoints: CeilingCheckpoints = "background",
): Promise<number> {
  const { seconds } = await rawSqliteEventInserts(rows, checkpoints);
  return rows.length / seconds;
}

/**
 * What the events table has but a ceiling may leave out, to measure what each costs: one of its
 * indexes by name, the unique index of its UID key ("uid": then nothing refuses a UID twice), or
 * every index ("all").
 */
export type LeftOut = string;

/** The named indexes of the events table in `sql`'s database (not the UID key's own), by name. */
function namedEventIndexes(sql: SqliteConnection): { name: string; sql: string }[] {
  return sql.db
    .prepare(
      "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL ORDER BY name",
    )
    .all() as { name: string; sql: string }[];
}

/** The events' indexes by name (`LeftOut`), the UID's own first. */
export function eventIndexes(): string[] {
  const sql = new SqliteConnection(":memory:");
  try {
    return ["uid", ...namedEventIndexes(sql).map((index) => index.name)];
  } finally {
    sql.close();
  }
}

/**
 * Takes `leftOut` out of the (empty) events table of `sql`'s database. Returns whether the table
 * still refuses a UID twice (its UID key kept).
 */
export function leaveOut(sql: SqliteConnection, leftOut: LeftOut): boolean {
  const { db } = sql;
  const indexes = namedEventIndexes(sql);
  if (leftOut !== "uid" && leftOut !== "all") {
    if (!indexes.some((i) => i.name === leftOut)) throw new Error(`the events table has no index ${leftOut}`);
    db.exec(`DROP INDEX ${leftOut}`);
    return true;
  }
  // The key's index goes with the key: the table is made again without it (it is empty), with its
  // other indexes ("uid") or none ("all").
  const table = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'events'")
    .pluck()
    .get() as string;
  const keyless = table.replace(/uid TEXT PRIMARY KEY/, "uid TEXT NOT NULL");
  if (keyless === table) throw new Error("the events table's UID is no longer its key: update leaveOut");
  db.exec("DROP TABLE events");
  db.exec(keyless);
  if (leftOut === "uid") for (const index of indexes) db.exec(index.sql);
  return false;
}

/** `rawSqliteEventRate`'s inserts, timed; without `leftOut` (see `LeftOut`), if given. */
export async function rawSqliteEventInserts(
  rows: readonly EventRow[],
  checkpoints: CeilingCheckpoints = "background",
  leftOut?: LeftOut,
): Promise<Timed> {
  const dir = await mkdtemp(join(tmpdir(), "cardsim-bench-raw-"));
  const sql = new SqliteConnection(join(dir, "hub.db"), { checkpointer: checkpoints === "background" });
  try {
    const keyed = leftOut === undefined || leaveOut(sql, leftOut);
    const insert = sql.db.prepare(
      `INSERT INTO events (${EVENT_COLUMNS.join(", ")})
       VALUES (${EVENT_COLUMNS.map(() => "?").join(", ")})${keyed ? " ON CONFLICT (uid) DO NOTHING" : ""}`,
    );
    const values = rows.map((r) => EVENT_COLUMNS.map((k) => r[k]));
    const batch = sql.db.transaction((slice: unknown[][]) => {
      for (const row of slice) insert.run(...row);
    });
    const size = BATCH_LIMITS.notes;
    const cpu = cpuClock();
    const cpuFrom = cpu.now();
    const started = performance.now();
    for (let i = 0; i < values.length; i += size) batch(values.slice(i, i + size));
    return { seconds: (performance.now() - started) / 1000, cpuMs: cpu.now() - cpuFrom };
  } finally {
    await sql.stopCheckpointer();
    sql.close();
    await rm(dir, { recursive: true, force: true });
  }
}
