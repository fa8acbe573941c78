import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SHARED_CLUSTER_ENV, stopCluster } from "./postgres.js";

/**
 * vitest's globalSetup: a folder for the run's PostgreSQL cluster, which the first test that needs
 * one starts there (test/support/postgres.ts; a run without such tests starts none), and its stop
 * at the end of the run.
 */
export default function setup(): () => void {
  if (process.env["CARDSIM_TEST_POSTGRES"]) return () => undefined;
  const dir = mkdtempSync(join(tmpdir(), "cardsim-pg-run-"));
  process.env[SHARED_CLUSTER_ENV] = dir;
  return () => stopCluster(dir);
}
