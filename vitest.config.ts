import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  // The package's entries as an installed package names them, on the sources (no build needed).
  resolve: {
    alias: [
      { find: /^cardsim\/harness$/, replacement: here("./harness/index.ts") },
      { find: /^cardsim$/, replacement: here("./runtime/index.ts") },
    ],
  },
  test: {
    include: ["test/**/*.test.ts", "firmware/**/*.test.ts", "hub/**/*.test.ts", "hil/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    setupFiles: ["test/support/fastCheckSeed.ts"],
  },
});
