import { describe, it } from "vitest";
import type { HubStore } from "../../../../../hub/store/HubStore.js";
import { PgHubStore } from "../../../../../hub/store/postgres/PgHubStore.js";
import { SqliteHubStore } from "../../../../../hub/store/sqlite/SqliteHubStore.js";
import {
  createTestDatabase,
  dropTestDatabase,
  POSTGRES_SKIP_MESSAGE,
  testPostgresUrl,
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

function postgres(adminUrl: string): StoreBackend {
  const urls = new Map<HubStore, string>();
  return {
    name: "postgres",
    async open() {
      const url = await createTestDatabase(adminUrl);
      const store = await PgHubStore.open(url, { poolSize: 4 });
      urls.set(store, url);
      return store;
    },
    async dispose(store) {
      await store.close();
      const url = urls.get(store);
      urls.delete(store);
      if (url) await dropTestDatabase(adminUrl, url);
    },
  };
}

/**
 * The backends every store test runs on: SQLite, and PostgreSQL when a server is to be had
 * (test/support/postgres.ts; under CI=true a missing one fails the run).
 */
export function storeBackends(): StoreBackend[] {
  const url = testPostgresUrl();
  return url ? [sqlite, postgres(url)] : [sqlite];
}

/**
 * `describe`s `body` once per backend, its name saying which. Without a PostgreSQL server its half
 * is one skipped test whose name says how to run it.
 */
export function describeEachBackend(title: string, body: (backend: StoreBackend) => void): void {
  const backends = storeBackends();
  for (const backend of backends) describe(`${title} (${backend.name})`, () => body(backend));
  if (!backends.some((b) => b.name === "postgres")) {
    describe(`${title} (postgres)`, () => it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
  }
}
