import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, expect, it } from "vitest";
import {
  CHECKPOINT_PAGES,
  Checkpointer,
  type CheckpointResult,
} from "../../../hub/store/sqlite/Checkpointer.js";

// The checkpointing worker copies the hub's log into the database once CHECKPOINT_PAGES (4000)
// pages wait, not at SQLite's own 1000: a page the hub writes again and again is copied once a
// checkpoint, and each checkpoint costs two fsyncs. The worker is asked to look at the log
// (`poll`, what its timer does) right after each commit, so nothing waits on time.

const ONE_MB = Buffer.alloc(1024 * 1024, 7);

let dir: string;
let writer: Database.Database;
let checkpointer: Checkpointer;
const results: CheckpointResult[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "cardsim-checkpoint-pages-"));
  const path = join(dir, "hub.db");
  writer = new Database(path);
  writer.pragma("journal_mode = WAL");
  writer.pragma("wal_autocheckpoint = 0");
  writer.exec("CREATE TABLE blobs (n INTEGER PRIMARY KEY, data BLOB)");
  results.length = 0;
  // Its own timer out of the way: only `poll` looks at the log.
  checkpointer = new Checkpointer(path, { pollMs: 3_600_000, onCheckpoint: (r) => results.push(r) });
  await checkpointer.ready;
});
afterEach(async () => {
  await checkpointer.stop();
  writer.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Commits `megabytes` rows of 1 MiB (about 257 pages each) in one transaction. */
const commit = (megabytes: number, from: number) =>
  writer.transaction(() => {
    for (let n = from; n < from + megabytes; n++)
      writer.prepare("INSERT INTO blobs (n, data) VALUES (?, ?)").run(n, ONE_MB);
  })();

it("leaves a log of some 3,000 pages alone and copies it whole once 4,000 wait", async () => {
  commit(12, 0);
  expect(await checkpointer.poll()).toBe(false);
  expect(results).toEqual([]);
  commit(4, 12);
  expect(await checkpointer.poll()).toBe(true);
  expect(results).toHaveLength(1);
  expect(results[0]!.log).toBeGreaterThanOrEqual(CHECKPOINT_PAGES);
  expect(results[0]).toMatchObject({ busy: 0, checkpointed: results[0]!.log });
  // Copied: nothing waits any more.
  expect(await checkpointer.poll()).toBe(false);
});
