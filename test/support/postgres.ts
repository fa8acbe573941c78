// The throwaway PostgreSQL cluster of the tests and benches lives in tools/ (bench/postgres.ts uses it too).
import { describe } from "vitest";
import { testPostgresUrl } from "../../tools/throwawayPostgres.js";

export * from "../../tools/throwawayPostgres.js";

/** The backends a test file parametrised by store backend runs on. */
export type TestStore = "sqlite" | "postgres";

/**
 * Which halves of the files parametrised by store backend this vitest project runs, set per
 * project in vitest.config.ts: `sqlite` in `fast` (no PostgreSQL started there), `postgres` in the
 * `postgres` project (part of `npm run test:e2e`); both when unset (a file run on its own
 * outside the projects). The backend-free tests of such a file go with the SQLite half.
 */
export const TEST_STORES_ENV = "CARDSIM_TEST_STORES";

function storesHere(): readonly TestStore[] {
  const given = process.env[TEST_STORES_ENV];
  return given ? (given.split(",") as TestStore[]) : ["sqlite", "postgres"];
}

/** Whether this project runs the SQLite half (and the backend-free tests) of such files. */
export function sqliteHere(): boolean {
  return storesHere().includes("sqlite");
}

/** Whether this project runs the PostgreSQL half of such files (skipped when no server is to be had). */
export function postgresWantedHere(): boolean {
  return storesHere().includes("postgres");
}

/**
 * The tests' PostgreSQL admin URL (starting the run's cluster) when this project runs the
 * PostgreSQL halves and a server is to be had; undefined otherwise.
 */
export function postgresHere(): string | undefined {
  return postgresWantedHere() ? testPostgresUrl() : undefined;
}

/**
 * `describe` for the backend-free tests of a file parametrised by store backend: declared in the
 * projects that run the SQLite half, absent elsewhere (so that `npm test` runs them once).
 */
export function describeWithSqliteHalf(name: string, body: () => void): void {
  if (sqliteHere()) describe(name, body);
}
