import Database from "better-sqlite3";
import { SqliteConnection } from "../../../../hub/store/sqlite/SqliteConnection.js";

/**
 * Counts the transactions SQLite runs for this process's hub stores: every outermost `BEGIN` (a
 * store transaction, or one store method's own), and every statement run outside a transaction
 * (SQLite runs each such statement as a transaction of its own, a read included). Savepoints
 * (nested units), statements inside a transaction and pragmas are not counted. Installed on the
 * prototypes, so it sees stores opened before and after; `uninstall` puts them back.
 */
export function countStoreTransactions(): {
  readonly count: () => number;
  /** Every SQL statement run so far (transaction control included, pragmas not), by its text. */
  readonly statements: () => ReadonlyMap<string, number>;
  uninstall(): void;
} {
  let count = 0;
  const statements = new Map<string, number>();
  const probe = new Database(":memory:");
  const statement = Object.getPrototypeOf(probe.prepare("SELECT 1")) as Record<string, unknown>;
  probe.close();
  const saved = new Map<string, unknown>();
  for (const name of ["run", "get", "all", "iterate"]) {
    const original = statement[name] as (this: Database.Statement, ...args: unknown[]) => unknown;
    saved.set(name, original);
    statement[name] = function (this: Database.Statement, ...args: unknown[]) {
      if (!/^\s*PRAGMA/i.test(this.source)) {
        const sql = this.source.replace(/\s+/g, " ").trim();
        statements.set(sql, (statements.get(sql) ?? 0) + 1);
      }
      // A pragma reads the connection's state (data_version: did another process write?), no rows.
      if (
        /^\s*BEGIN/i.test(this.source) ||
        (!this.database.inTransaction && !/^\s*PRAGMA/i.test(this.source))
      )
        count++;
      return original.apply(this, args);
    };
  }
  const connection = SqliteConnection.prototype as unknown as Record<string, unknown>;
  const transaction = connection["transaction"] as (this: SqliteConnection, work: () => unknown) => unknown;
  connection["transaction"] = function (this: SqliteConnection, work: () => unknown) {
    // A store method's own transaction: counted when it is the outermost one.
    if (this.db.inTransaction) return transaction.call(this, work);
    count++;
    return transaction.call(this, work);
  };
  return {
    count: () => count,
    statements: () => new Map(statements),
    uninstall() {
      for (const [name, original] of saved) statement[name] = original;
      connection["transaction"] = transaction;
    },
  };
}

/** The statements run between two readings of `statements()` (by text, those run at least once). */
export function statementsSince(
  before: ReadonlyMap<string, number>,
  now: ReadonlyMap<string, number>,
): Map<string, number> {
  const ran = new Map<string, number>();
  for (const [sql, n] of now) {
    const more = n - (before.get(sql) ?? 0);
    if (more > 0) ran.set(sql, more);
  }
  return ran;
}

/** How many of `ran`'s statements begin with `prefix`. */
export function runsOf(ran: ReadonlyMap<string, number>, prefix: string): number {
  let sum = 0;
  for (const [sql, n] of ran) if (sql.startsWith(prefix)) sum += n;
  return sum;
}
