import fc from "fast-check";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import "../../support/fastCheckSeed.js";
import { SqliteConnection } from "../../../hub/store/sqlite/SqliteConnection.js";
import { FakeClock } from "../../../runtime/FakeClock.js";

// `SqliteConnection.cachedGet`/`cachedAll` (ReadCache): a read is answered from memory until a table
// its SQL names changes. A write through the connection changes the table it names, and those its
// foreign keys' actions change with it (a delete's, or an update's); a table with a trigger, DDL, a statement not understood, a
// rollback or another connection's commit change every table.

const SCHEMA = `
  CREATE TABLE parent (id INTEGER PRIMARY KEY, label TEXT);
  CREATE TABLE child (id INTEGER PRIMARY KEY, n INTEGER,
    parent_id INTEGER REFERENCES parent(id) ON DELETE CASCADE ON UPDATE CASCADE);
  CREATE TABLE grandchild (id INTEGER PRIMARY KEY, child_id INTEGER REFERENCES child(id) ON DELETE SET NULL);
  CREATE TABLE other (id INTEGER PRIMARY KEY, n INTEGER);
  CREATE TABLE audited (id INTEGER PRIMARY KEY, n INTEGER);
  CREATE TABLE audit (id INTEGER PRIMARY KEY AUTOINCREMENT, what TEXT);
  CREATE TRIGGER audited_insert AFTER INSERT ON audited BEGIN INSERT INTO audit (what) VALUES ('insert'); END;
  CREATE VIEW child_counts AS SELECT parent_id, count(*) AS n FROM child GROUP BY parent_id;
  INSERT INTO parent (id, label) VALUES (1, 'one'), (2, 'two');
  INSERT INTO child (id, parent_id, n) VALUES (10, 1, 0), (11, 1, 0), (20, 2, 0);
  INSERT INTO grandchild (id, child_id) VALUES (100, 10);
`;

/** Reads, each as SQL a store would write, cached or not. */
const READS = {
  parent: "SELECT * FROM parent ORDER BY id",
  child: "SELECT * FROM child ORDER BY id",
  grandchild: "SELECT * FROM grandchild ORDER BY id",
  other: "SELECT * FROM other ORDER BY id",
  audit: "SELECT what FROM audit ORDER BY id",
  view: "SELECT * FROM child_counts ORDER BY parent_id",
  join: "SELECT p.label, c.id FROM parent p JOIN child c ON c.parent_id = p.id ORDER BY c.id",
  cte: "WITH ones AS (SELECT id FROM child WHERE parent_id = 1) SELECT count(*) AS n FROM ones",
} as const;
type Read = keyof typeof READS;

describe("a connection's cached reads", () => {
  let sql: SqliteConnection;
  /** The read, bypassing the cache. */
  const fresh = (read: Read) => sql.db.prepare(READS[read]).all();
  /** Changes the database behind the connection's back: a cached read still shows what it held. */
  const behind = (text: string) => sql.db.prepare(text).run();

  beforeEach(() => {
    sql = new SqliteConnection(":memory:");
    sql.db.exec(SCHEMA);
  });
  afterEach(() => sql.close());

  it("are answered from memory while other tables are written", () => {
    expect(sql.cachedAll(READS.parent)).toEqual(fresh("parent"));
    behind("UPDATE parent SET label = 'unseen' WHERE id = 1");
    sql.run("INSERT INTO other (n) VALUES (?)", 1);
    sql.run("UPDATE child SET n = n + 1");
    expect(sql.cachedAll<{ label: string }>(READS.parent)[0]!.label).toBe("one");
    expect(sql.cachedGet<{ label: string }>("SELECT label FROM parent WHERE id = ?", 2)?.label).toBe("two");
    sql.run("UPDATE parent SET label = ? WHERE id = ?", "uno", 2);
    expect(sql.cachedAll(READS.parent)).toEqual(fresh("parent"));
    // Rows of a parent updated or inserted, none deleted: the reads of children whose foreign keys
    // act only on a delete stay (child -> grandchild: ON DELETE SET NULL).
    expect(sql.cachedAll(READS.grandchild)).toEqual(fresh("grandchild"));
    behind("DELETE FROM grandchild");
    sql.run("UPDATE child SET n = 9 WHERE id = 10");
    sql.run("INSERT INTO child (id, parent_id, n) VALUES (12, 1, 0)");
    sql.run("INSERT INTO child (id, parent_id, n) VALUES (12, 1, 1) ON CONFLICT (id) DO NOTHING");
    expect(sql.cachedAll(READS.grandchild)).toEqual([{ id: 100, child_id: 10 }]);
    sql.run("INSERT OR REPLACE INTO child (id, parent_id, n) VALUES (12, 1, 2)");
    expect(sql.cachedAll(READS.grandchild)).toEqual([]);
  });

  it("keep the values of different parameters apart", () => {
    const both = (...params: unknown[]) =>
      sql.cachedGet("SELECT ? AS v, ? AS w FROM parent LIMIT 1", ...params);
    const cases: unknown[][] = [
      [1, "x"],
      ["1", "x"],
      ["a\u0000", "b"],
      ["a", "\u0000b"],
      [null, "x"],
      ["null", "x"],
      ['["a","b"]', ""],
    ];
    for (const params of cases) expect(both(...params)).toEqual({ v: params[0], w: params[1] });
    for (const params of cases) expect(both(...params)).toEqual({ v: params[0], w: params[1] });
    const one = (param: unknown) => sql.cachedGet("SELECT ? AS v FROM parent LIMIT 1", param);
    const singles: unknown[] = [1, "1", "[1]", '["1"]', null, "null", "", 0];
    for (const param of singles) expect(one(param)).toEqual({ v: param });
    for (const param of singles) expect(one(param)).toEqual({ v: param });
  });

  it("show each form of write to their table", () => {
    const writes = [
      "INSERT INTO other (id, n) VALUES (1, 1)",
      "insert  or  replace into main.other (id, n) values (1, 2)",
      'REPLACE INTO "other"(id, n) VALUES (1, 3)',
      "INSERT INTO other (id, n) VALUES (1, 4) ON CONFLICT (id) DO UPDATE SET n = excluded.n",
      "UPDATE OR IGNORE other SET n = 5",
      "\n  DELETE FROM other WHERE id = 1",
    ];
    for (const write of writes) {
      sql.cachedAll(READS.other);
      sql.run(write);
      expect(sql.cachedAll(READS.other), write).toEqual(fresh("other"));
    }
  });

  it("show what foreign key actions and triggers change with the table written", () => {
    sql.cachedAll(READS.child);
    sql.run("UPDATE parent SET id = 3 WHERE id = 2");
    expect(sql.cachedAll(READS.child)).toEqual(fresh("child"));
    expect(fresh("child")).toContainEqual({ id: 20, parent_id: 3, n: 0 });
    for (const read of ["child", "grandchild", "view", "join", "cte"] as const) sql.cachedAll(READS[read]);
    sql.run("DELETE FROM parent WHERE id = ?", 1);
    for (const read of ["child", "grandchild", "view", "join", "cte"] as const)
      expect(sql.cachedAll(READS[read]), read).toEqual(fresh(read));
    expect(fresh("grandchild")).toEqual([{ id: 100, child_id: null }]);
    sql.cachedAll(READS.audit);
    sql.run("INSERT INTO audited (n) VALUES (1)");
    expect(sql.cachedAll(READS.audit)).toEqual([{ what: "insert" }]);
  });

  it("show what a rolled-back store call, savepoint or gate transaction undid", async () => {
    const n = () => sql.cachedGet<{ n: number }>("SELECT n FROM child WHERE id = ?", 10)?.n;
    expect(() =>
      sql.transaction(() => {
        sql.run("UPDATE child SET n = 7 WHERE id = 10");
        expect(n()).toBe(7);
        throw new Error("undo");
      }),
    ).toThrow("undo");
    expect(n()).toBe(0);
    sql.transaction(() => {
      sql.run("UPDATE child SET n = 1 WHERE id = 10");
      expect(() =>
        sql.transaction(() => {
          sql.run("UPDATE child SET n = 2 WHERE id = 10");
          expect(n()).toBe(2);
          throw new Error("undo the savepoint");
        }),
      ).toThrow();
      expect(n()).toBe(1);
    });
    await expect(
      sql.gate.transaction(async () => {
        sql.run("UPDATE child SET n = 3 WHERE id = 10");
        expect(n()).toBe(3);
        throw new Error("undo the gate's transaction");
      }),
    ).rejects.toThrow();
    expect(n()).toBe(1);
  });

  it("show what a group commit's rolled-back transaction undid, its group's others kept", async () => {
    const clock = new FakeClock();
    sql.groupCommits({ clock, windowMs: 1000 });
    const labels = () => sql.cachedAll<{ label: string }>(READS.parent).map((r) => r.label);
    const kept = sql.gate.transaction(
      async () => void sql.run("UPDATE parent SET label = 'kept' WHERE id = 1"),
    );
    const undone = sql.gate.transaction(async () => {
      sql.run("UPDATE parent SET label = 'undone' WHERE id = 2");
      expect(labels()).toEqual(["kept", "undone"]);
      throw new Error("undo");
    });
    await expect(undone).rejects.toThrow("undo");
    expect(labels()).toEqual(["kept", "two"]);
    await clock.advance(1000);
    await kept;
    expect(labels()).toEqual(["kept", "two"]);
  });

  it("follow DDL run through the connection and tables created after the first read", () => {
    sql.cachedAll(READS.audit);
    sql.run(
      "CREATE TRIGGER other_insert AFTER INSERT ON other BEGIN INSERT INTO audit (what) VALUES ('other'); END",
    );
    sql.run("INSERT INTO other (n) VALUES (1)");
    expect(sql.cachedAll(READS.audit)).toEqual([{ what: "other" }]);
    sql.db.exec("CREATE TABLE later (n INTEGER)");
    expect(sql.cachedAll("SELECT n FROM later")).toEqual([]);
    sql.run("INSERT INTO later (n) VALUES (1)");
    expect(sql.cachedAll("SELECT n FROM later")).toEqual([{ n: 1 }]);
  });

  it("agree with the database after any sequence of writes, reads and rollbacks", () => {
    const writes = [
      "UPDATE parent SET label = label || 'x' WHERE id = 1",
      "DELETE FROM parent WHERE id = 2",
      "UPDATE parent SET id = id + 10 WHERE id = (SELECT max(id) FROM parent)",
      "UPDATE child SET id = id + 1 WHERE id = (SELECT max(id) FROM child)",
      "INSERT INTO parent (label) VALUES ('new')",
      "INSERT OR REPLACE INTO parent (id, label) VALUES (1, 'replaced')",
      "UPDATE child SET n = n + 1 WHERE parent_id = 1",
      "INSERT INTO child (parent_id, n) SELECT id, 5 FROM parent LIMIT 1",
      "DELETE FROM child WHERE id = (SELECT min(id) FROM child)",
      "INSERT INTO grandchild (child_id) SELECT max(id) FROM child",
      "INSERT INTO other (n) VALUES (1)",
      "UPDATE other SET n = n * 2",
      "INSERT INTO audited (n) VALUES (3)",
    ];
    const reads = Object.keys(READS) as Read[];
    // A write a foreign key refuses changes nothing (the statement is undone on its own).
    const write = (text: string) => {
      try {
        sql.run(text);
      } catch (error) {
        expect(String(error)).toContain("FOREIGN KEY");
      }
    };
    type Step =
      | { kind: "write"; i: number }
      | { kind: "read"; read: Read }
      | { kind: "undone"; i: number; nested: boolean };
    const step: fc.Arbitrary<Step> = fc.oneof(
      fc.record({ kind: fc.constant("write" as const), i: fc.nat(writes.length - 1) }),
      fc.record({ kind: fc.constant("read" as const), read: fc.constantFrom(...reads) }),
      fc.record({ kind: fc.constant("undone" as const), i: fc.nat(writes.length - 1), nested: fc.boolean() }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        sql.close();
        sql = new SqliteConnection(":memory:");
        sql.db.exec(SCHEMA);
        for (const s of steps) {
          if (s.kind === "write") write(writes[s.i]!);
          else if (s.kind === "read") expect(sql.cachedAll(READS[s.read]), s.read).toEqual(fresh(s.read));
          else {
            const undo = () =>
              sql.transaction(() => {
                write(writes[s.i]!);
                for (const read of reads) expect(sql.cachedAll(READS[read])).toEqual(fresh(read));
                throw new Error("undo");
              });
            if (s.nested) sql.transaction(() => expect(undo).toThrow("undo"));
            else expect(undo).toThrow("undo");
          }
        }
        for (const read of reads) expect(sql.cachedAll(READS[read]), read).toEqual(fresh(read));
      }),
      { numRuns: 150 },
    );
  });
});

describe("cached reads of a database file another connection writes", () => {
  let dir: string;
  let hub: SqliteConnection;
  let cli: SqliteConnection;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-reads-"));
    hub = new SqliteConnection(join(dir, "hub.db"));
    hub.db.exec(SCHEMA);
    cli = new SqliteConnection(join(dir, "hub.db"));
  });
  afterEach(() => {
    cli.close();
    hub.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("show its commit from the next turn of the event loop on", async () => {
    const label = () => hub.cachedGet<{ label: string }>("SELECT label FROM parent WHERE id = ?", 1)?.label;
    expect(label()).toBe("one");
    cli.run("UPDATE parent SET label = 'from the cli' WHERE id = 1");
    await new Promise((resolve) => setImmediate(resolve));
    expect(label()).toBe("from the cli");
    // Its schema change too: a trigger added by another process is followed from then on.
    cli.run(
      "CREATE TRIGGER other_audit AFTER INSERT ON other BEGIN INSERT INTO audit (what) VALUES ('o'); END",
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(hub.cachedAll("SELECT what FROM audit")).toEqual([]);
    hub.run("INSERT INTO other (n) VALUES (1)");
    expect(hub.cachedAll("SELECT what FROM audit")).toEqual([{ what: "o" }]);
  });
});
