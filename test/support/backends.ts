import { describe, it } from "vitest";
import type { HubStore } from "../../hub/store/HubStore.js";
import { openHubStore } from "../../runtime/openHubStore.js";
import {
  freshTestDatabase,
  POSTGRES_SKIP_MESSAGE,
  postgresHere,
  postgresWantedHere,
  sqliteHere,
  testPostgresUrl,
} from "./postgres.js";

/** Which database a test's hub keeps its records in. */
export type Backend = "sqlite" | "postgres";

/**
 * The backends a test runs on in this vitest project (CARDSIM_TEST_STORES: SQLite in `fast`,
 * PostgreSQL in `postgres`, both for a file run on its own), PostgreSQL only when a server is to
 * be had.
 */
export function testBackends(): Backend[] {
  return [...(sqliteHere() ? (["sqlite"] as const) : []), ...(postgresHere() ? (["postgres"] as const) : [])];
}

/**
 * `body` described once per backend (`name (sqlite)`, `name (postgres)`); without a PostgreSQL
 * server its run is one skipped test saying how to run it.
 */
export function describeOnBackends(name: string, body: (backend: Backend) => void): void {
  for (const backend of testBackends()) describe(`${name} (${backend})`, () => body(backend));
  if (postgresWantedHere() && !testPostgresUrl())
    describe(`${name} (postgres)`, () => it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
}

/** A fresh hub store: SQLite in memory, or a new database on the tests' PostgreSQL server. */
export async function openTestStore(backend: Backend = "sqlite"): Promise<HubStore> {
  if (backend === "sqlite") return openHubStore({ kind: "sqlite", path: ":memory:" });
  const url = await freshTestDatabase();
  if (!url) throw new Error(POSTGRES_SKIP_MESSAGE);
  return openHubStore(url);
}
