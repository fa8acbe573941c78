import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { SqliteConnection } from "../../../hub/store/sqlite/SqliteConnection.js";
import { FakeClock } from "../../../runtime/FakeClock.js";

// `SqliteConnection.transaction` (one store method's statements): a transaction of its own, or
// inside an open one a savepoint, run by the connection's cached statements. better-sqlite3's
// `db.transaction(work)()` built a wrapper of five functions for every call, which cost more than
// the savepoint itself for the small calls a session makes inside its group.

describe("a store call's transaction", () => {
  let sql: SqliteConnection;
  const rows = () => (sql.db.prepare("SELECT n FROM t ORDER BY n").all() as { n: number }[]).map((r) => r.n);
  const put = (n: number) => sql.run("INSERT INTO t (n) VALUES (?)", n);
  const fail = (n: number) => () => {
    put(n);
    throw new Error(`failed after ${n}`);
  };

  beforeEach(() => {
    sql = new SqliteConnection(":memory:");
    sql.db.exec("CREATE TABLE t (n INTEGER PRIMARY KEY)");
  });
  afterEach(() => {
    vi.restoreAllMocks();
    sql.close();
  });

  it("commits on its own, or rolls all of its work back when it throws", () => {
    const wrapper = vi.spyOn(sql.db, "transaction");
    expect(sql.transaction(() => (put(1), put(2), "done"))).toBe("done");
    expect(sql.db.inTransaction).toBe(false);
    expect(() => sql.transaction(fail(3))).toThrow("failed after 3");
    expect(sql.db.inTransaction).toBe(false);
    expect(rows()).toEqual([1, 2]);
    expect(wrapper).not.toHaveBeenCalled();
  });

  it("inside a group commit undoes only its own statements, the group's other work kept", async () => {
    const clock = new FakeClock();
    sql.groupCommits({ clock, windowMs: 5000 });
    const wrapper = vi.spyOn(sql.db, "transaction");
    const stored = sql.gate.transaction(async () => {
      put(1);
      expect(() => sql.transaction(fail(2))).toThrow("failed after 2");
      // Nested calls: the inner one's failure is caught by the outer, which goes on.
      sql.transaction(() => {
        put(3);
        expect(() => sql.transaction(fail(4))).toThrow();
        put(5);
      });
      expect(() => sql.transaction(() => Promise.resolve(put(6)))).toThrow("cannot return a promise");
    });
    await clock.advance(5000);
    await stored;
    expect(rows()).toEqual([1, 3, 5]);
    expect(wrapper).not.toHaveBeenCalled();
  });

  it("ends cleanly when SQLite has already rolled the whole transaction back", () => {
    sql.db.exec("BEGIN");
    put(1);
    expect(() =>
      sql.transaction(() => {
        put(2);
        sql.db.exec("ROLLBACK");
        throw new Error("after SQLite's own rollback");
      }),
    ).toThrow("after SQLite's own rollback");
    expect(sql.db.inTransaction).toBe(false);
    expect(rows()).toEqual([]);
  });
});
