import Database from "better-sqlite3";
import { expect } from "vitest";
import { migrations } from "../../hub/store/sqlite/migrations.js";

/**
 * A hub database file at `path` as the build before a migration left it: every SQLite migration
 * before the first whose text contains `marker`, and its version set to match (so that opening it
 * with the hub's store runs that migration and those after it). Open: the caller fills and closes it.
 */
export function hubDatabaseBefore(path: string, marker: string): Database.Database {
  const at = migrations.findIndex((m) => m.includes(marker));
  expect(at, `no SQLite migration contains ${marker}`).toBeGreaterThan(0);
  const db = new Database(path);
  for (const m of migrations.slice(0, at)) db.exec(m);
  db.pragma(`user_version = ${at}`);
  return db;
}
