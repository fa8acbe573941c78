import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteConnection } from "../../../hub/store/sqlite/SqliteConnection.js";
import { countStoreTransactions, runsOf, statementsSince } from "../sync/support/storeTransactions.js";

// Group commits in real time (a hub serving devices, `cardsim hub`): the transactions begun in one
// turn of the event loop are one SQLite transaction, committed from a setImmediate once the turn's
// work is done; each caller is answered only once that COMMIT has stored its changes.

describe("group commits of one event-loop turn", () => {
  const counter = countStoreTransactions();
  let dir: string;
  let sql: SqliteConnection;
  let other: SqliteConnection;
  /** What happened, in order: each COMMIT the grouped connection ran, each caller answered. */
  let trace: string[];
  let mark: ReadonlyMap<string, number>;

  const put = (n: number) => sql.run("INSERT INTO t (n) VALUES (?)", n);
  /** What another connection to the file sees: only what is committed. */
  const committed = () =>
    (other.db.prepare("SELECT n FROM t ORDER BY n").all() as { n: number }[]).map((r) => r.n);
  /** The COMMITs run since the test began. */
  const commits = () => runsOf(statementsSince(mark, counter.statements()), "COMMIT");
  /** Lets the microtasks queued now run, within the same turn (no setImmediate runs meanwhile). */
  const microtasks = async () => {
    for (let i = 0; i < 50; i++) await Promise.resolve();
  };
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
  /** `p`, recording in the trace when it is answered and what was stored by then. */
  const answered = <T>(name: string, p: Promise<T>): Promise<T> =>
    p.then(
      (value) => {
        trace.push(`${name} answered, stored ${committed().join(",")}`);
        return value;
      },
      (error: unknown) => {
        trace.push(`${name} rejected, stored ${committed().join(",")}`);
        throw error;
      },
    );

  /** A transaction that puts `n`, answered as `answered` records it. */
  const putIn = (name: string, n: number, options?: { durable: boolean }) =>
    answered(
      name,
      sql.gate.transaction(async () => put(n), options),
    );

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-turn-group-"));
    sql = new SqliteConnection(join(dir, "hub.db"));
    sql.db.exec(
      "CREATE TABLE parent (id INTEGER PRIMARY KEY);" +
        "CREATE TABLE t (n INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY DEFERRED)",
    );
    other = new SqliteConnection(join(dir, "hub.db"));
    trace = [];
    const control = sql.statement("COMMIT");
    const run = control.run.bind(control);
    // This connection's own COMMIT statement (prepared once and cached), traced.
    control.run = (...args: unknown[]) => {
      trace.push("COMMIT");
      return run(...args);
    };
    sql.groupCommits({ eventLoopTurn: true });
    mark = counter.statements();
  });
  afterEach(() => {
    sql.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });
  afterAll(() => counter.uninstall());

  it("commits two transactions begun in one turn with one COMMIT, answering neither before it", async () => {
    const first = answered(
      "first",
      sql.gate.transaction(async () => {
        put(1);
        return "one";
      }),
    );
    const second = putIn("second", 2);
    await microtasks();
    // Both ran and were released into the group: this connection reads them, nothing is stored.
    expect((sql.db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n).toBe(2);
    expect(committed()).toEqual([]);
    expect([trace, commits()]).toEqual([[], 0]);
    await expect(first).resolves.toBe("one");
    await second;
    expect(trace).toEqual(["COMMIT", "first answered, stored 1,2", "second answered, stored 1,2"]);
    expect(commits()).toBe(1);
  });

  it("commits a transaction of a later turn in a group of its own", async () => {
    const first = putIn("first", 1);
    await nextTurn();
    await first;
    const second = putIn("second", 2);
    await microtasks();
    expect(committed()).toEqual([1]);
    await second;
    expect(trace).toEqual(["COMMIT", "first answered, stored 1", "COMMIT", "second answered, stored 1,2"]);
    expect(commits()).toBe(2);
  });

  it("answers a store call outside any transaction made in the turn once the group is stored", async () => {
    const inGroup = putIn("transaction", 1);
    const call = answered(
      "call",
      sql.gate.call(async () => {
        put(2);
        return "written";
      }),
    );
    await expect(call).resolves.toBe("written");
    await inGroup;
    expect(trace).toEqual(["COMMIT", "transaction answered, stored 1,2", "call answered, stored 1,2"]);
  });

  it("rejects every caller of a group whose COMMIT fails, and keeps what earlier groups stored", async () => {
    sql.db.exec("INSERT INTO parent (id) VALUES (7)");
    await putIn("earlier", 1);
    // The deferred foreign key is checked by the COMMIT: the group's second transaction breaks it.
    const good = answered(
      "good",
      sql.gate.transaction(async () => sql.run("INSERT INTO t VALUES (2, 7)")),
    );
    const bad = answered(
      "bad",
      sql.gate.transaction(async () => sql.run("INSERT INTO t VALUES (3, 99)")),
    );
    await expect(good).rejects.toThrow(/FOREIGN KEY/);
    await expect(bad).rejects.toThrow(/FOREIGN KEY/);
    expect(trace).toEqual([
      "COMMIT",
      "earlier answered, stored 1",
      "COMMIT",
      "good rejected, stored 1",
      "bad rejected, stored 1",
    ]);
    expect(sql.db.inTransaction).toBe(false);
    // Nothing of the failed group is left in this connection either; the next group commits.
    await putIn("after", 4);
    expect(committed()).toEqual([1, 4]);
    expect((sql.db.prepare("SELECT n FROM t ORDER BY n").all() as { n: number }[]).map((r) => r.n)).toEqual([
      1, 4,
    ]);
  });

  it("runs a group's first transaction without a savepoint: undoing it ends the group, and the turn's next one opens another", async () => {
    const failed = answered(
      "failed",
      sql.gate.transaction(async () => {
        put(1);
        throw new Error("refused");
      }),
    );
    const next = putIn("next", 2);
    const third = putIn("third", 3);
    await expect(failed).rejects.toThrow("refused");
    await Promise.all([next, third]);
    expect(trace).toEqual([
      "failed rejected, stored ",
      "COMMIT",
      "next answered, stored 2,3",
      "third answered, stored 2,3",
    ]);
    const ran = statementsSince(mark, counter.statements());
    // Three transactions, two groups: only the one that joined a group already open had a savepoint.
    expect(runsOf(ran, "BEGIN IMMEDIATE")).toBe(2);
    expect(runsOf(ran, "SAVEPOINT hub_group")).toBe(1);
    expect(runsOf(ran, "ROLLBACK")).toBe(1);
    expect(commits()).toBe(1);
  });

  it("commits the group open before a durable transaction begun in the same turn, which commits on its own", async () => {
    const before = putIn("before", 1);
    const durable = putIn("durable", 2, { durable: true });
    const after = putIn("after", 3);
    await Promise.all([before, durable, after]);
    expect(trace).toEqual([
      "COMMIT",
      "COMMIT",
      "before answered, stored 1,2",
      "durable answered, stored 1,2",
      "COMMIT",
      "after answered, stored 1,2,3",
    ]);
    expect(commits()).toBe(3);
  });

  it("holds the group's commit while one of its transactions is still open at the end of the turn", async () => {
    const slow = answered(
      "slow",
      sql.gate.transaction(async () => {
        put(1);
        await nextTurn();
        await nextTurn();
        put(2);
      }),
    );
    const queued = putIn("queued", 3);
    await nextTurn();
    expect([trace, committed()]).toEqual([[], []]);
    await Promise.all([slow, queued]);
    // The slow one ends the group (due since its first turn ended); the queued one opens the next.
    expect(trace).toEqual(["COMMIT", "slow answered, stored 1,2", "COMMIT", "queued answered, stored 1,2,3"]);
  });
});
