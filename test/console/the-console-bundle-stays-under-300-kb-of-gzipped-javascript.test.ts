import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { expect, it } from "vitest";
import { buildConsole } from "../../hub/console/consoleBundle.js";

/** The budget for the console's JavaScript, gzipped (docs/console.md says what it weighs). */
const BUDGET_BYTES = 300 * 1024;

it("bundles the console into at most 300 KB of gzipped JavaScript", async () => {
  const out = await mkdtemp(join(tmpdir(), "cardsim-console-bundle-"));
  try {
    await buildConsole(out);
    const script = await readFile(join(out, "console.js"));
    const gzipped = gzipSync(script, { level: 9 }).length;
    process.stdout.write(`console.js: ${script.length} bytes, ${gzipped} gzipped\n`);
    expect(gzipped).toBeGreaterThan(1000);
    expect(gzipped).toBeLessThan(BUDGET_BYTES);
  } finally {
    await rm(out, { recursive: true, force: true });
  }
}, 60_000);
