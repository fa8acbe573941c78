import { afterEach, describe, expect, it } from "vitest";
import { eventIndexes, leaveOut } from "../../bench/eventCeiling.js";
import { SqliteConnection } from "../../hub/store/sqlite/SqliteConnection.js";

// bench/fleet.ts --index-costs times the raw inserts of a run's events with each of the events'
// indexes left out (bench/eventCeiling.ts): what it measures is only what it says if the table it
// inserts into lacks exactly that index and keeps every other.

const indexesOf = (sql: SqliteConnection): string[] =>
  sql.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' ORDER BY name")
    .pluck()
    .all() as string[];

const insert = (sql: SqliteConnection, uid: string) =>
  sql.db
    .prepare(
      `INSERT INTO events (uid, project_uid, project_key, device_uid, session_uid, file, received, captured, billable, data)
       VALUES (?, 'app:1', 1, 'dev:1', 's', 'sensors.qo', 1, 1, 1, '{}')`,
    )
    .run(uid);

describe("the event ceiling's left-out indexes", () => {
  let sql: SqliteConnection;
  afterEach(() => sql.close());

  it("names the UID key's index first, then every index the hub's events table has", () => {
    sql = new SqliteConnection(":memory:");
    const named = indexesOf(sql).filter((name) => !name.startsWith("sqlite_autoindex"));
    expect(named.length).toBeGreaterThanOrEqual(5);
    expect(eventIndexes()).toEqual(["uid", ...named]);
  });

  it("drops exactly the named index", () => {
    for (const name of eventIndexes().slice(1)) {
      sql = new SqliteConnection(":memory:");
      const before = indexesOf(sql);
      leaveOut(sql, name);
      expect(indexesOf(sql)).toEqual(before.filter((n) => n !== name));
      sql.close();
    }
    sql = new SqliteConnection(":memory:");
  });

  it("takes the UID's key (and its index) away and keeps the other indexes", () => {
    sql = new SqliteConnection(":memory:");
    const before = indexesOf(sql);
    insert(sql, "a");
    expect(() => insert(sql, "a")).toThrow(/UNIQUE/);
    sql.db.exec("DELETE FROM events");
    leaveOut(sql, "uid");
    expect(indexesOf(sql)).toEqual(before.filter((n) => !n.startsWith("sqlite_autoindex")));
    insert(sql, "a");
    insert(sql, "a");
    expect(sql.db.prepare("SELECT count(*) FROM events").pluck().get()).toBe(2);
  });

  it("leaves the table alone with no index at all", () => {
    sql = new SqliteConnection(":memory:");
    leaveOut(sql, "all");
    expect(indexesOf(sql)).toEqual([]);
    insert(sql, "a");
    insert(sql, "a");
    expect(sql.db.prepare("SELECT count(*) FROM events").pluck().get()).toBe(2);
  });

  it("refuses a name the events table has no index by", () => {
    sql = new SqliteConnection(":memory:");
    expect(() => leaveOut(sql, "events_nowhere")).toThrow(/no index events_nowhere/);
  });
});
