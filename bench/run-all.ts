/**
 * Runs every benchmark in turn, each in its own process (no benchmark warms another's caches),
 * and exits non-zero if any missed its target. `npm run bench`.
 */
import { spawnSync } from "node:child_process";

const benches = [
  "dispatcher",
  "notes",
  "card-requests",
  "links",
  "i2c",
  "storage",
  "hub-api",
  "fleet-boot",
  "sync",
  "postgres",
  "clock",
  "routes",
  "dfu",
  "startup",
  "console",
];
const failed: string[] = [];
for (const name of benches) {
  console.log(`\n=== bench/${name}.ts`);
  const run = spawnSync(process.execPath, ["--expose-gc", "--import", "tsx", `bench/${name}.ts`], {
    stdio: "inherit",
  });
  if (run.status !== 0) failed.push(name);
}
console.log(failed.length ? `\nmissed a target: ${failed.join(", ")}` : "\nevery benchmark met its target");
process.exitCode = failed.length ? 1 : 0;
