// Whether a clone's build (dist/) was made from the sources as they are now. Plain CommonJS:
// bin/cardsim.js requires it at every start of a clone, before anything is compiled and without
// Node's ES module loader. Never shipped (an installed package has no sources and always runs its
// dist/).
//
// The stamp lists every file the build compiles (path, size and modification time of each .ts
// under the layers' folders but their tests, and of the TypeScript configurations), taken when the
// build starts and written into dist/ when it ends. The build is fresh while the list is the same:
// any edit, checkout, pull, new or deleted file changes it, so a clone never runs a stale build.
// It costs a directory walk and a stat per file: no reading of a source, no hash (loading
// node:crypto alone cost more than the walk) and no child process (docs/performance.md).
"use strict";
const { readdirSync, readFileSync, statSync } = require("node:fs");
const { join } = require("node:path");

/** The folders tsconfig.build.json compiles. */
const SOURCE_FOLDERS = [
  "core",
  "protocol",
  "firmware",
  "hil",
  "boards",
  "runtime",
  "harness",
  "hub",
  "cli",
  "types",
];
/** Files that change what the build makes. */
const BUILD_CONFIGS = ["tsconfig.json", "tsconfig.build.json"];
/** Where the build writes its stamp (inside the folder it builds, so it goes with it). */
const STAMP = ".build-stamp";
/** The stamp's first line: a stamp of another format (a hash, from an older build) never matches. */
const FORMAT = "cardsim build stamp 2: path, size, modification time of each source";

/** The fingerprint of the sources under `root` as they are now: one line per file. */
function sourceFingerprint(root) {
  let text = `${FORMAT}\n`;
  const add = (path, stat) => {
    text += stat ? `${path}\t${stat.size}\t${stat.mtimeMs}\n` : `${path}\tabsent\n`;
  };
  for (const file of BUILD_CONFIGS) add(file, statSync(join(root, file), { throwIfNoEntry: false }));
  const walk = (folder) => {
    let entries;
    try {
      entries = readdirSync(join(root, folder), { withFileTypes: true });
    } catch {
      return; // a folder that is not there adds nothing
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const child = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts"))
        add(child, statSync(join(root, child)));
    }
  };
  for (const folder of SOURCE_FOLDERS) walk(folder);
  return text;
}

/** True when `buildDir` (dist/ of the clone at `root`) holds a build of the sources as they are now. */
function buildIsFresh(root, buildDir) {
  let stamp;
  try {
    stamp = readFileSync(join(buildDir, STAMP), "utf8");
  } catch {
    return false;
  }
  return stamp === sourceFingerprint(root);
}

module.exports = { SOURCE_FOLDERS, BUILD_CONFIGS, STAMP, sourceFingerprint, buildIsFresh };
