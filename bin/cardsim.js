#!/usr/bin/env node
// The `cardsim` command. An installed package runs its compiled JavaScript (dist/). A clone runs
// its build too while the build was made from the sources as they are now (`npm ci` builds it,
// tools/buildStamp.cjs checks it), and its TypeScript through tsx otherwise, so that a developer
// editing the sources never runs a stale build. CARDSIM_DIST=1 runs a clone's build whatever its
// stamp says, CARDSIM_DIST=0 the sources.
//
// CommonJS (bin/package.json says so), as is the build's start bundle (tools/bundleCli.js): Node
// then starts the command without its ES module loader, which `--help`, `--version` and `req`
// do not need; a subcommand's `import()` of the rest of dist/ starts it when it runs
// (docs/performance.md, "Command start-up").
"use strict";
const { existsSync } = require("node:fs");
const { join } = require("node:path");
const { pathToFileURL } = require("node:url");

const root = join(__dirname, "..");
const dist = join(root, "dist");
// The start path in one file (tools/bundleCli.js); a build made before it had only main.js.
const bundle = join(dist, "cli", "cardsim.cjs");
const built = join(dist, "cli", "main.js");

/** Whether to run the build (else the sources): always in an installed package. */
function runBuild() {
  if (!existsSync(join(root, "cli", "main.ts"))) return true; // installed
  const choice = process.env.CARDSIM_DIST;
  if (choice === "0") return false;
  if (choice === "1") return existsSync(bundle) || existsSync(built); // a build if there is one
  return require("../tools/buildStamp.cjs").buildIsFresh(root, dist);
}

async function importSources() {
  const { register } = await import("tsx/esm/api");
  register();
  return import(pathToFileURL(join(root, "cli", "main.ts")).href);
}

if (!runBuild()) importSources().then(({ main }) => main(process.argv));
else if (existsSync(bundle)) require(bundle).main(process.argv);
else import(pathToFileURL(built).href).then(({ main }) => main(process.argv));
