import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteConnection } from "../../hub/store/sqlite/SqliteConnection.js";
import { FakeClock } from "../../runtime/FakeClock.js";

// Group commits (a fleet's own hub): the transactions of a window of the clock's time are one
// SQLite transaction, each released into it as a savepoint; each caller is answered only once the
// group is committed, so nothing is acknowledged before it is stored (exactly once holds).

const WINDOW = 5000;

describe("group commits over a window of the clock", () => {
  let dir: string;
  let sql: SqliteConnection;
  let other: SqliteConnection;
  let clock: FakeClock;
  const settled = (p: Promise<unknown>) => {
    const state = { done: false };
    void p.then(
      () => (state.done = true),
      () => (state.done = true),
    );
    return state;
  };
  const put = (n: number) => sql.run("INSERT INTO t (n) VALUES (?)", n);
  /** What another connection to the file sees: only what is committed. */
  const committed = () =>
    (other.db.prepare("SELECT n FROM t ORDER BY n").all() as { n: number }[]).map((r) => r.n);
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-group-"));
    sql = new SqliteConnection(join(dir, "hub.db"));
    sql.db.exec("CREATE TABLE t (n INTEGER PRIMARY KEY)");
    other = new SqliteConnection(join(dir, "hub.db"));
    clock = new FakeClock();
    sql.groupCommits({ clock, windowMs: WINDOW });
  });
  afterEach(() => {
    sql.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("commits the window's transactions as one, answering none of them before it is stored", async () => {
    const actions: string[] = [];
    const first = sql.gate.transaction(async () => {
      put(1);
      sql.gate.afterCommit(() => actions.push("first"));
      return "one";
    });
    const second = sql.gate.transaction(async () => put(2));
    const a = settled(first);
    const b = settled(second);
    await turns(3);
    // Both ran (this connection reads them), neither is stored nor answered, no action ran.
    expect((sql.db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(2);
    expect(committed()).toEqual([]);
    expect([a.done, b.done, actions]).toEqual([false, false, []]);
    await clock.advance(WINDOW - 1);
    expect(committed()).toEqual([]);
    await clock.advance(1);
    expect(committed()).toEqual([1, 2]);
    await expect(first).resolves.toBe("one");
    await second;
    expect(actions).toEqual(["first"]);
  });

  it("undoes only a failed transaction's own changes, and the others of its window are stored", async () => {
    const ok = sql.gate.transaction(async () => put(1));
    const failed = sql.gate.transaction(async () => {
      put(2);
      throw new Error("refused");
    });
    await expect(failed).rejects.toThrow("refused");
    const after = sql.gate.transaction(async () => put(3));
    await clock.advance(WINDOW);
    await Promise.all([ok, after]);
    expect(committed()).toEqual([1, 3]);
  });

  it("answers a store call outside any transaction made while a group is open once the group is stored", async () => {
    const inGroup = settled(sql.gate.transaction(async () => put(1)));
    const call = sql.gate.call(async () => {
      put(2);
      return "written";
    });
    const outside = settled(call);
    await turns(3);
    expect([inGroup.done, outside.done]).toEqual([false, false]);
    await clock.advance(WINDOW);
    await expect(call).resolves.toBe("written");
    expect(committed()).toEqual([1, 2]);
    // With no group open, a call is answered at once.
    sql.groupCommits(undefined);
    await sql.gate.call(async () => put(3));
    expect(committed()).toEqual([1, 2, 3]);
  });

  it("commits the group open before a durable transaction, and when grouping is turned off", async () => {
    const grouped = sql.gate.transaction(async () => put(1));
    await sql.gate.transaction(async () => put(2), { durable: true });
    expect(committed()).toEqual([1, 2]);
    await grouped;
    const next = sql.gate.transaction(async () => put(3));
    await turns(2);
    expect(committed()).toEqual([1, 2]);
    sql.groupCommits(undefined);
    await next;
    expect(committed()).toEqual([1, 2, 3]);
    // Each transaction now commits on its own.
    await sql.gate.transaction(async () => put(4));
    expect(committed()).toEqual([1, 2, 3, 4]);
  });

  it("holds the group's commit while one of its transactions is open when the window ends", async () => {
    let release!: () => void;
    const open = new Promise<void>((resolve) => (release = resolve));
    const slow = sql.gate.transaction(async () => {
      put(1);
      await open;
      put(2);
    });
    await turns(2);
    await clock.advance(WINDOW);
    expect(committed()).toEqual([]);
    release();
    await slow;
    expect(committed()).toEqual([1, 2]);
  });
});
