import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

const INCLUDE = ["test/**/*.test.ts", "firmware/**/*.test.ts", "hub/**/*.test.ts", "hil/**/*.test.ts"];

/**
 * The end-to-end tests: whole `cardsim` processes, ptys and real serial devices, host programs in
 * other languages, PostgreSQL servers of their own, tests that wait on the real clock or on child
 * processes (JSONata workers, gpiod tools), and the longest in-process runs (every endpoint of the
 * hub, every failure point of a sync, thirty simulated days, fuzzing the whole hub)
 * (`npm run test:e2e`, with the PostgreSQL halves and PACKAGE). Everything else is the fast project
 * (`npm run test:fast`: unit and in-process tests of every layer, no process started, no
 * PostgreSQL). `npm test` runs all: the README's whole suite.
 */
export const E2E = [
  "test/cli/**/*.test.ts",
  "test/console/browser/**/*.test.ts",
  "test/hil/e2e/**/*.test.ts",
  "test/hil/i2c/rp2040-bridge-against-the-bridge-core-on-a-pty.test.ts",
  "test/hil/links/a-serial-port-link-serves-a-module-on-a-tty-and-reopens-it-when-it-comes-back.test.ts",
  "test/harness/a-scenario-on-a-real-serial-device-sees-a-real-host-program.test.ts",
  "test/harness/the-rig-self-test-proves-each-pin-with-loopbacks.test.ts",
  "test/firmware/storage/cardsim-module-keeps-its-flash-in-a-directory.test.ts",
  "test/firmware/storage/flash-on-a-real-directory.test.ts",
  "test/firmware/storage/flash-written-by-an-earlier-build-still-boots-with-every-note.test.ts",
  "test/hub/the-readme-examples-reach-the-local-hub.test.ts",
  "test/hub/dfu/an-update-over-https-between-two-processes-reaches-a-note-c-host.test.ts",
  "test/radio/the-cli-takes-radio-and-supply-flags-and-says-what-to-do-about-a-bad-one.test.ts",
  // PostgreSQL alone (the run's cluster, or one of the test's own that it stops and starts).
  "test/hub/store/a-postgresql-store-asks-again-for-a-connection-while-its-server-restarts.test.ts",
  "test/hub/store/hub-processes-over-one-postgresql-database-share-sessions-challenges-and-messages-and-outlive-a-terminated-connection.test.ts",
  "test/hub/store/hub-processes-over-one-postgresql-database-behind-a-round-robin-share-the-rate-limit-and-the-sign-in-and-pin-throttles.test.ts",
  // Child processes, and the real clock.
  "test/hil/gpio/gpio-lines-through-the-gpiod-tools-and-the-simulated-chip.test.ts",
  "test/hub/store/a-hub-database-killed-while-its-worker-checkpoints-keeps-every-committed-row.test.ts",
  "test/hub/events/jsonata-runs-in-worker-processes-stopped-at-a-deadline-or-a-heap-limit-and-replaced.test.ts",
  "test/hub/routes/a-hostile-jsonata-transform-fails-its-delivery-while-the-listening-hub-answers.test.ts",
  "test/hub/routes/hostile-jsonata-in-proxy-routes-and-smart-fleet-rules-fails-alone-and-a-stop-mid-evaluation-is-not-counted.test.ts",
  "test/hub/routes/a-listening-hub-routes-events-on-the-real-clock.test.ts",
  // The longest in-process runs.
  "test/hub/every-endpoint-enforces-authentication-roles-and-rate-limits.test.ts",
  "test/hub/fuzzed-queries-and-bodies-never-crash-the-hub.test.ts",
  "test/hub/events/a-page-of-100k-events-is-read-through-an-index.test.ts",
  "test/sync/a-sync-loses-and-repeats-nothing-whatever-fails-at-any-step.test.ts",
  "test/sync-modes/thirty-days-of-periodic-sync-through-outages-a-discharge-and-a-power-change-keep-to-the-schedule.test.ts",
  "test/radio/thirty-days-of-poor-coverage-on-a-sagging-battery-cost-an-exact-charge.test.ts",
  "test/runtime/fleet/a-fleet-in-two-worker-threads-syncs-over-https-with-a-listening-hub-every-note-once.test.ts",
  "test/runtime/fleet/a-fleet-against-a-hub-elsewhere-makes-its-environment-changes-and-firmware-campaign-once-through-that-hub-s-api.test.ts",
  "test/runtime/fleet/a-fleet-of-200-modules-running-a-day-of-the-sensors-workload-leaves-96-events-per-device-each-note-once.test.ts",
];

/**
 * The files parametrised by store backend (test/support/postgres.ts and backends.ts:
 * describeEachBackend, syncCases, postgresHere, describeOnBackends, testBackends): `fast` runs their SQLite half and their backend-free tests, the
 * `postgres` project (part of `npm run test:e2e`) their PostgreSQL half, each test once in
 * `npm test`. Found by what they call, so that a new one cannot lose its PostgreSQL half.
 */
const BACKEND_HELPERS =
  /\b(describeEachBackend|syncCases|storeBackends|postgresHere|describeOnBackends|testBackends)\(/;
export const BY_BACKEND = ["test", "firmware", "hub", "hil"]
  .flatMap((root) =>
    readdirSync(here(root), { recursive: true, encoding: "utf8" }).map((f) => `${root}/${f}`),
  )
  .filter((f) => f.endsWith(".test.ts"))
  .filter((f) => BACKEND_HELPERS.test(readFileSync(here(f), "utf8")))
  .sort();

/**
 * The packed package: `npm pack` once per run and the tarball installed into an empty project
 * (test/package/support/packOnce.ts, only when one of these runs), where a firmware team's tests,
 * the docs' runnable examples and the cookbook run. One file at a time: each runs a vitest of its own.
 */
export const PACKAGE = ["test/package/**/*.test.ts"];

/**
 * Fast tests that replace a module of the product (`vi.mock`): they need a module graph of their
 * own, so they run isolated (`fast-isolated`, part of `npm run test:fast`).
 */
export const ISOLATED = ["test/hub/start-hub-answers-no-request-before-credentials-json-is-complete.test.ts"];

const shared = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: "forks" as const,
  setupFiles: ["test/support/fastCheckSeed.ts"],
  // The run's PostgreSQL cluster, started by the first test that needs one (test/support/postgres.ts).
  globalSetup: ["test/support/postgresCluster.ts"],
};

export default defineConfig({
  // The package's entries as an installed package names them, on the sources (no build needed).
  resolve: {
    alias: [
      { find: /^cardsim\/harness$/, replacement: here("./harness/index.ts") },
      { find: /^cardsim$/, replacement: here("./runtime/index.ts") },
    ],
  },
  test: {
    ...shared,
    // Transformed sources kept on disk between runs (keyed by content), in the checkout.
    experimental: { fsModuleCache: true, fsModuleCachePath: ".cache/vitest" },
    projects: [
      {
        extends: true,
        test: {
          name: "fast",
          include: INCLUDE,
          exclude: [...E2E, ...PACKAGE, ...ISOLATED],
          // The SQLite half of the files parametrised by store backend (BY_BACKEND).
          env: { CARDSIM_TEST_STORES: "sqlite" },
          // One module graph per worker for all its files: each file no longer imports the hub,
          // the module and their libraries again (most of the project's time was imports). The
          // tests start and stop what they use; test/support holds no state between files.
          isolate: false,
          // Both cores: the in-process tests wait on loopback sockets and the disk much of the time.
          maxWorkers: 2,
        },
      },
      // Projects with their own worker counts run one after the other (`npm test`: fast first).
      { extends: true, test: { name: "fast-isolated", include: ISOLATED, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: "e2e", include: E2E, sequence: { groupOrder: 2 } } },
      {
        extends: true,
        test: {
          name: "postgres",
          include: BY_BACKEND,
          exclude: [...E2E, ...PACKAGE, ...ISOLATED],
          env: { CARDSIM_TEST_STORES: "postgres" },
          sequence: { groupOrder: 2 },
        },
      },
      {
        extends: true,
        test: {
          name: "package",
          include: PACKAGE,
          globalSetup: ["test/package/support/packOnce.ts"],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
          sequence: { groupOrder: 3 },
        },
      },
    ],
  },
});
