import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteConnection } from "../../hub/store/sqlite/SqliteConnection.js";

const FIVE_MB = new Uint8Array(5 * 1024 * 1024).fill(7);
const turns = (n: number): Promise<void> =>
  n === 0 ? Promise.resolve() : new Promise((resolve) => setImmediate(() => void turns(n - 1).then(resolve)));

describe("a durable transaction (an uploaded image)", () => {
  let dir: string;
  let sql: SqliteConnection;
  const file = () => statSync(join(dir, "hub.db")).size;
  const settings = () => ({
    synchronous: sql.db.pragma("synchronous", { simple: true }),
    autocheckpoint: sql.db.pragma("wal_autocheckpoint", { simple: true }),
  });
  const put = (n: number) => sql.run("INSERT INTO blobs (n, data) VALUES (?, ?)", n, FIVE_MB);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-durable-"));
    sql = new SqliteConnection(join(dir, "hub.db"));
    sql.db.exec("CREATE TABLE blobs (n INTEGER PRIMARY KEY, data BLOB)");
  });
  afterEach(() => {
    sql.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("commits with the log synced (FULL), then leaves copying it into the database to an idle moment", async () => {
    const before = file();
    await sql.gate.transaction(
      async () => {
        expect(settings()).toEqual({ synchronous: 2, autocheckpoint: 0 });
        put(1);
      },
      { durable: true },
    );
    // Committed (in the log), not yet copied into the database file: the answer goes out first.
    expect(settings()).toEqual({ synchronous: 1, autocheckpoint: 1000 });
    expect(file()).toBe(before);
    // Not on the next turns of the event loop either: a client in this process reads its answer.
    await turns(2);
    expect(file()).toBe(before);
    await sql.checkpointed();
    expect(file()).toBeGreaterThan(before + FIVE_MB.length);
    expect((sql.db.prepare("SELECT length(data) AS n FROM blobs").get() as { n: number }).n).toBe(
      FIVE_MB.length,
    );
  });

  it("an ordinary one is checkpointed by SQLite at the commit that takes the log past 1000 pages", async () => {
    const before = file();
    await sql.gate.transaction(async () => {
      expect(settings()).toEqual({ synchronous: 1, autocheckpoint: 1000 });
      put(1);
    });
    expect(file()).toBeGreaterThan(before + FIVE_MB.length);
  });

  it("restores the ordinary settings when it rolls back, and a nested unit cannot make its parent durable", async () => {
    await expect(
      sql.gate.transaction(
        async () => {
          put(1);
          throw new Error("no");
        },
        { durable: true },
      ),
    ).rejects.toThrow("no");
    expect(settings()).toEqual({ synchronous: 1, autocheckpoint: 1000 });
    expect(sql.db.prepare("SELECT count(*) AS n FROM blobs").get()).toEqual({ n: 0 });
    await sql.gate.transaction(async () => {
      await sql.gate.transaction(
        async () => {
          expect(settings()).toEqual({ synchronous: 1, autocheckpoint: 1000 });
          put(2);
        },
        { durable: true },
      );
    });
    expect(settings()).toEqual({ synchronous: 1, autocheckpoint: 1000 });
  });
});
