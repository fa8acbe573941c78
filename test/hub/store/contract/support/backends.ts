import { describe, it } from "vitest";
import type { HubStore } from "../../../../../hub/store/HubStore.js";
import { PgHubStore } from "../../../../../hub/store/postgres/PgHubStore.js";
import { SqliteHubStore } from "../../../../../hub/store/sqlite/SqliteHubStore.js";
import pg from "pg";
import {
  createTestDatabase,
  POSTGRES_SKIP_MESSAGE,
  postgresHere,
  postgresWantedHere,
  sqliteHere,
} from "../../../../support/postgres.js";

/** A way to open a new, empty hub store (each call a store of its own). */
export interface StoreBackend {
  readonly name: "sqlite" | "postgres";
  open(): Promise<HubStore>;
  /** Closes a store it opened and drops what it made. */
  dispose(store: HubStore): Promise<void>;
}

const sqlite: StoreBackend = {
  name: "sqlite",
  open: async () => new SqliteHubStore(":memory:"),
  dispose: (store) => store.close(),
};

/**
 * PostgreSQL: one database per test file, migrated once, and emptied (every table but the schema
 * version's; sequences go on) for each store opened on it.
 */
function postgres(adminUrl: string): StoreBackend {
  let database: Promise<string> | undefined;
  return {
    name: "postgres",
    async open() {
      database ??= createTestDatabase(adminUrl).then(async (url) => {
        await (await PgHubStore.open(url)).close();
        return url;
      });
      const url = await database;
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const tables = await client.query<{ name: string }>(
          "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'schema_version'",
        );
        // DELETE is quicker than TRUNCATE on tables this small; foreign keys are not checked meanwhile.
        const deletes = tables.rows.map((t) => `DELETE FROM ${t.name};`).join(" ");
        await client.query(
          `SET session_replication_role = replica; ${deletes} SET session_replication_role = DEFAULT;`,
        );
      } finally {
        await client.end();
      }
      return PgHubStore.open(url, { poolSize: 4 });
    },
    dispose: (store) => store.close(),
  };
}

/**
 * The backends every store test runs on: SQLite, and PostgreSQL when a server is to be had
 * (test/support/postgres.ts; under CI=true a missing one fails the run); each in the vitest
 * project that runs its half (sqliteHere, postgresHere: SQLite in `fast`, PostgreSQL in `postgres`).
 */
export function storeBackends(): StoreBackend[] {
  const url = postgresHere();
  return [...(sqliteHere() ? [sqlite] : []), ...(url ? [postgres(url)] : [])];
}

/**
 * `describe`s `body` once per backend, its name saying which. Without a PostgreSQL server its half
 * is one skipped test whose name says how to run it.
 */
export function describeEachBackend(title: string, body: (backend: StoreBackend) => void): void {
  const backends = storeBackends();
  for (const backend of backends) describe(`${title} (${backend.name})`, () => body(backend));
  if (postgresWantedHere() && !backends.some((b) => b.name === "postgres")) {
    describe(`${title} (postgres)`, () => it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
  }
}
