import { describe, it } from "vitest";
import type { HubStore } from "../../hub/store/HubStore.js";
import { openHubStore } from "../../runtime/openHubStore.js";
import { freshTestDatabase, POSTGRES_SKIP_MESSAGE, testPostgresUrl } from "./postgres.js";

/** Which database a test's hub keeps its records in. */
export type Backend = "sqlite" | "postgres";

/** The backends a test runs on: SQLite always, PostgreSQL when a server is to be had. */
export function testBackends(): Backend[] {
  return testPostgresUrl() ? ["sqlite", "postgres"] : ["sqlite"];
}

/**
 * `body` described once per backend (`name (sqlite)`, `name (postgres)`); without a PostgreSQL
 * server its run is one skipped test saying how to run it.
 */
export function describeOnBackends(name: string, body: (backend: Backend) => void): void {
  for (const backend of testBackends()) describe(`${name} (${backend})`, () => body(backend));
  if (!testPostgresUrl())
    describe(`${name} (postgres)`, () => it.skip(POSTGRES_SKIP_MESSAGE, () => undefined));
}

/** A fresh hub store: SQLite in memory, or a new database on the tests' PostgreSQL server. */
export async function openTestStore(backend: Backend = "sqlite"): Promise<HubStore> {
  if (backend === "sqlite") return openHubStore({ kind: "sqlite", path: ":memory:" });
  const url = await freshTestDatabase();
  if (!url) throw new Error(POSTGRES_SKIP_MESSAGE);
  return openHubStore(url);
}
