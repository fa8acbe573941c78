import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { SqliteConnection } from "../../../hub/store/sqlite/SqliteConnection.js";

// A cached read checks SQLite's data_version once a turn of the event loop, so that another
// process's commit to the same file is seen from the next turn on: the check is forgotten by a
// `setImmediate`. A private in-memory database has no other connection: it reads the version once
// and queues nothing, so the fake clock (which turns the event loop between timers only when an
// immediate or other real work waits) goes on from a timer whose session read the hub's store
// without a turn.

const immediates = () => process.getActiveResourcesInfo().filter((r) => r === "Immediate").length;
const turn = () => new Promise((resolve) => setImmediate(resolve));

describe("a hub database's data_version check", () => {
  const opened: SqliteConnection[] = [];
  let dir: string | undefined;
  afterEach(() => {
    for (const sql of opened.splice(0)) sql.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("in memory: read once, and no immediate queued by any cached read", async () => {
    const sql = new SqliteConnection(":memory:");
    opened.push(sql);
    sql.db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER); INSERT INTO t VALUES (1, 1)");
    for (let i = 0; i < 3; i++) {
      const before = immediates();
      expect(sql.cachedGet<{ n: number }>("SELECT n FROM t WHERE id = ?", 1)?.n).toBe(i + 1);
      expect(immediates()).toBe(before);
      sql.run("UPDATE t SET n = n + 1 WHERE id = 1");
      await turn();
    }
  });

  it("on a file: checked again from the next turn, so that another connection's commit is seen", async () => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-data-version-"));
    const file = join(dir, "hub.db");
    const sql = new SqliteConnection(file);
    const other = new SqliteConnection(file);
    opened.push(sql, other);
    sql.db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, n INTEGER); INSERT INTO t VALUES (1, 1)");
    const before = immediates();
    expect(sql.cachedGet<{ n: number }>("SELECT n FROM t WHERE id = ?", 1)?.n).toBe(1);
    expect(immediates()).toBe(before + 1);
    other.db.prepare("UPDATE t SET n = 2 WHERE id = 1").run();
    // The same turn: the version read at its start stands.
    expect(sql.cachedGet<{ n: number }>("SELECT n FROM t WHERE id = ?", 1)?.n).toBe(1);
    await turn();
    expect(sql.cachedGet<{ n: number }>("SELECT n FROM t WHERE id = ?", 1)?.n).toBe(2);
  });
});
