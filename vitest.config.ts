import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts", "firmware/**/*.test.ts", "hub/**/*.test.ts", "hil/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    setupFiles: ["test/support/fastCheckSeed.ts"],
  },
});
