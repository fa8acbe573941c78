import type Database from "better-sqlite3";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { endianness, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Checkpointer, type CheckpointResult } from "../../../hub/store/sqlite/Checkpointer.js";
import { SqliteConnection } from "../../../hub/store/sqlite/SqliteConnection.js";
import { SqliteHubStore } from "../../../hub/store/sqlite/SqliteHubStore.js";
import { Changes } from "../../support/waiting.js";

const ONE_MB = new Uint8Array(1024 * 1024).fill(7);

describe("a hub database checkpointed by a worker thread", () => {
  let dir: string;
  let path: string;
  let sql: SqliteConnection;
  const changes = new Changes();
  const results: CheckpointResult[] = [];
  const size = (file: string) => {
    try {
      return statSync(file).size;
    } catch {
      return 0;
    }
  };
  const settings = () => ({
    synchronous: sql.db.pragma("synchronous", { simple: true }),
    autocheckpoint: sql.db.pragma("wal_autocheckpoint", { simple: true }),
  });
  /** The frames in the log now (mxFrame, the WAL index's header: SQLite's fileformat2). */
  const logFrames = () => {
    const header = readFileSync(`${path}-shm`).subarray(0, 48);
    return endianness() === "LE" ? header.readUInt32LE(16) : header.readUInt32BE(16);
  };
  const put = (n: number) => sql.run("INSERT INTO blobs (n, data) VALUES (?, ?)", n, ONE_MB);
  const open = (options: { restartBytes?: number; pages?: number } = {}) => {
    sql = new SqliteConnection(path, {
      checkpointer: {
        pollMs: 5,
        ...options,
        onCheckpoint: (result) => {
          results.push(result);
          changes.fire();
        },
      },
    });
    sql.db.exec("CREATE TABLE IF NOT EXISTS blobs (n INTEGER PRIMARY KEY, data BLOB)");
  };

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cardsim-checkpointer-"));
    path = join(dir, "hub.db");
    results.length = 0;
  });
  afterEach(async () => {
    await sql.stopCheckpointer();
    sql.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("commits past 1000 pages without copying the log into the database; the worker copies it", async () => {
    open({ pages: 2000 });
    expect(sql.checkpointsInBackground).toBe(true);
    const before = size(path);
    await sql.gate.transaction(async () => {
      expect(settings()).toEqual({ synchronous: 1, autocheckpoint: 0 });
      for (let n = 1; n <= 5; n++) put(n); // about 1,300 pages of 4 KiB
    });
    // Without the worker, this commit would have checkpointed on the spot (see the durable test);
    // the worker waits for 2000.
    expect(size(path)).toBe(before);
    expect(size(`${path}-wal`)).toBeGreaterThan(5 * ONE_MB.length);
    await sql.gate.transaction(async () => {
      for (let n = 6; n <= 10; n++) put(n);
    });
    await changes.until(() => results.some((r) => r.checkpointed >= 2000), "a checkpoint by the worker");
    expect(size(path)).toBeGreaterThan(before + 10 * ONE_MB.length);
    expect(sql.get<{ n: number }>("SELECT count(*) AS n FROM blobs")).toEqual({ n: 10 });
  });

  it("keeps a durable transaction synced at its commit, and checkpointed() waits for the worker's copy", async () => {
    open();
    const before = size(path);
    await sql.gate.transaction(
      async () => {
        expect(settings()).toEqual({ synchronous: 2, autocheckpoint: 0 });
        put(1);
      },
      { durable: true },
    );
    expect(settings()).toEqual({ synchronous: 1, autocheckpoint: 0 });
    expect(size(path)).toBe(before);
    await sql.checkpointed();
    expect(size(path)).toBeGreaterThan(before + ONE_MB.length);
  });

  it("restarts a log grown past its limit from its beginning, the hub's connection copying nothing, and checkpoints in the commit again once stopped", async () => {
    open({ restartBytes: 2 * ONE_MB.length, pages: 300 });
    const pragmas: string[] = [];
    const pragma = sql.db.pragma.bind(sql.db);
    sql.db.pragma = ((source: string, options?: Database.PragmaOptions) => {
      pragmas.push(source);
      return pragma(source, options);
    }) as typeof sql.db.pragma;
    for (let n = 1; n <= 3; n++) await sql.gate.transaction(async () => put(n)); // about 770 pages
    expect(logFrames()).toBeGreaterThan(3 * 256);
    // The worker copies 300 pages and more, finds the log long, and the hub has it copy the rest.
    await changes.until(() => results.length > 0, "a checkpoint by the worker");
    await sql.gate.transaction(async () => put(4));
    // The log started again: it holds the last transaction alone, its file cut back to the limit.
    expect(logFrames()).toBeLessThan(300);
    expect(size(`${path}-wal`)).toBeLessThanOrEqual(2 * ONE_MB.length);
    expect(size(`${path}-wal`)).toBeGreaterThan(ONE_MB.length);
    expect(pragmas.filter((p) => p.includes("checkpoint("))).toEqual([]);
    expect(sql.db.pragma("integrity_check", { simple: true })).toBe("ok");
    await sql.stopCheckpointer();
    expect(sql.checkpointsInBackground).toBe(false);
    expect(settings()).toEqual({ synchronous: 1, autocheckpoint: 1000 });
    expect(sql.get<{ n: number }>("SELECT count(*) AS n FROM blobs")).toEqual({ n: 4 });
  });

  it("lets the log grow to 256 MiB by default before the hub has it copied whole and started again", async () => {
    // Each restart holds the hub's thread for the worker's last copy and its two fsyncs.
    const copyAll = vi.spyOn(Checkpointer.prototype, "copyAll");
    open({ pages: 300 });
    expect(sql.db.pragma("journal_size_limit", { simple: true })).toBe(256 * ONE_MB.length);
    // About 72 MiB of log, past the former limit of 64 MiB, each megabyte its own transaction.
    for (let n = 1; n <= 72; n++) await sql.gate.transaction(async () => put(n));
    expect(logFrames() * 4120).toBeGreaterThan(70 * ONE_MB.length);
    await changes.until(
      () => results.some((r) => r.log * 4120 > 70 * ONE_MB.length),
      "the worker's copy of a log past 70 MiB",
    );
    await sql.gate.transaction(async () => put(73));
    expect(copyAll).not.toHaveBeenCalled();
    copyAll.mockRestore();
    expect(sql.get<{ n: number }>("SELECT count(*) AS n FROM blobs")).toEqual({ n: 73 });
  });

  it("is never started for a database in memory, and a hub store stops it when it closes", async () => {
    const memory = new SqliteConnection(":memory:", { checkpointer: true });
    expect(memory.checkpointsInBackground).toBe(false);
    expect(memory.db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
    memory.close();

    const store = new SqliteHubStore(path, { checkpointer: true });
    expect(store.checkpointsInBackground).toBe(true);
    await store.setMeta("k", "v");
    await store.close();
    // The last connection closed: SQLite copied the log and removed it.
    expect(size(`${path}-wal`)).toBe(0);
    open();
  });
});
