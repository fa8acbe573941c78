#!/usr/bin/env node
// The `cardsim` command. An installed package runs its compiled JavaScript (dist/). A clone runs
// its build too while the build was made from the sources as they are now (`npm ci` builds it,
// tools/buildStamp.js checks it), and its TypeScript through tsx otherwise, so that a developer
// editing the sources never runs a stale build. CARDSIM_DIST=1 runs a clone's build whatever its
// stamp says, CARDSIM_DIST=0 the sources.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const dist = new URL("../dist/", import.meta.url);
const built = new URL("cli/main.js", dist);
// The start path in one file (tools/bundleCli.js); a build made before it had only main.js.
const bundle = new URL("cli/cardsim.js", dist);

async function runBuild() {
  if (!existsSync(new URL("../cli/main.ts", import.meta.url))) return existsSync(built); // installed
  const choice = process.env.CARDSIM_DIST;
  if (choice === "0") return false;
  if (choice === "1") return existsSync(built);
  const { buildIsFresh } = await import("../tools/buildStamp.js");
  return buildIsFresh(fileURLToPath(new URL("..", import.meta.url)), fileURLToPath(dist));
}

if (await runBuild()) {
  const { main } = await import((existsSync(bundle) ? bundle : built).href);
  await main(process.argv);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  const { main } = await import("../cli/main.ts");
  await main(process.argv);
}
