#!/usr/bin/env node
// The `cardsim` command. An installed package runs its compiled JavaScript (dist/). A clone runs
// its TypeScript through tsx, so that it needs no build step and never runs a stale build;
// CARDSIM_DIST=1 makes a clone run its build (`npm run build`) instead, as the start-up
// benchmark does.
import { existsSync } from "node:fs";

const built = new URL("../dist/cli/main.js", import.meta.url);
const clone = existsSync(new URL("../cli/main.ts", import.meta.url));
if (existsSync(built) && (!clone || process.env.CARDSIM_DIST === "1")) {
  const { main } = await import(built.href);
  await main(process.argv);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  const { main } = await import("../cli/main.ts");
  await main(process.argv);
}
