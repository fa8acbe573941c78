import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

const INCLUDE = ["test/**/*.test.ts", "firmware/**/*.test.ts", "hub/**/*.test.ts", "hil/**/*.test.ts"];

/**
 * The end-to-end tests: whole `cardsim` processes, ptys and real serial devices, host programs in
 * other languages, and the slowest in-process runs (`npm run test:e2e`, with PACKAGE). Everything
 * else is the fast project (`npm run test:fast`: unit and in-process tests). `npm test` runs all:
 * the README's whole suite.
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
];

/**
 * The packed package: `npm pack` once per run and the tarball installed into an empty project
 * (test/package/support/packOnce.ts, only when one of these runs), where a firmware team's tests,
 * the docs' runnable examples and the cookbook run. One file at a time: each runs a vitest of its own.
 */
export const PACKAGE = ["test/package/**/*.test.ts"];

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
    projects: [
      { extends: true, test: { name: "fast", include: INCLUDE, exclude: [...E2E, ...PACKAGE] } },
      { extends: true, test: { name: "e2e", include: E2E } },
      {
        extends: true,
        test: {
          name: "package",
          include: PACKAGE,
          globalSetup: ["test/package/support/packOnce.ts"],
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
