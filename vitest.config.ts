import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

const INCLUDE = ["test/**/*.test.ts", "firmware/**/*.test.ts", "hub/**/*.test.ts", "hil/**/*.test.ts"];

/**
 * The end-to-end tests: whole `cardsim` processes, ptys and real serial devices, the packed
 * package, host programs in other languages, and the slowest in-process runs (`npm run test:e2e`).
 * Everything else is the fast project (`npm run test:fast`: unit and in-process tests). `npm test`
 * runs both: the README's whole suite.
 */
export const E2E = [
  "test/cli/**/*.test.ts",
  "test/console/browser/**/*.test.ts",
  "test/hil/e2e/**/*.test.ts",
  "test/package/**/*.test.ts",
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

const shared = {
  testTimeout: 30_000,
  hookTimeout: 30_000,
  pool: "forks" as const,
  setupFiles: ["test/support/fastCheckSeed.ts"],
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
      { extends: true, test: { name: "fast", include: INCLUDE, exclude: E2E } },
      { extends: true, test: { name: "e2e", include: E2E } },
    ],
  },
});
