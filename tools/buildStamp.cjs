// Whether a clone's build (dist/) was made from the sources as they are now. Plain CommonJS:
// bin/cardsim.js requires it at every start of a clone, before anything is compiled and without
// Node's ES module loader. Never shipped (an installed package has no sources and always runs its
// dist/).
//
// The stamp lists every file the build compiles (path, size and modification time of each .ts
// under the layers' folders but their tests, and of the TypeScript configurations) and every
// folder they are in (its modification time), taken when the build starts and written into dist/
// when it ends. The build is fresh while they are the same: any edit, checkout, pull, new or
// deleted file changes them, so a clone never runs a stale build. It costs a stat per folder and
// per file: no directory read while no folder changed, no reading of a source, no hash (loading
// node:crypto alone cost more than the rest) and no child process (docs/performance.md).
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
const FORMAT = "cardsim build stamp 3";

/**
 * The sources under `root` as they are now: every folder of SOURCE_FOLDERS with its modification
 * time (null: absent), and every file the build compiles with its size and modification time.
 */
function sourcesNow(root) {
  const dirs = [];
  const files = [];
  const stat = (path) => statSync(join(root, path), { throwIfNoEntry: false });
  for (const file of BUILD_CONFIGS) {
    const found = stat(file);
    files.push(found ? [file, found.size, found.mtimeMs] : [file, null, null]);
  }
  const walk = (folder) => {
    let entries;
    try {
      entries = readdirSync(join(root, folder), { withFileTypes: true });
    } catch {
      dirs.push([folder, null]); // a folder that is not there adds no file
      return;
    }
    dirs.push([folder, stat(folder).mtimeMs]);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const child = `${folder}/${entry.name}`;
      if (entry.isDirectory()) walk(child);
      else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) {
        const found = stat(child);
        files.push([child, found.size, found.mtimeMs]);
      }
    }
  };
  for (const folder of SOURCE_FOLDERS) walk(folder);
  return { dirs, files };
}

/** The stamp of the sources under `root` as they are now (what the build writes into dist/). */
function sourceFingerprint(root) {
  return `${FORMAT}\n${JSON.stringify(sourcesNow(root))}\n`;
}

/**
 * Whether every folder and file of `stamp` is as it was. A folder's modification time changes
 * whenever a file is added to it, deleted or renamed, so while every folder's is the same, the
 * stamp's files are all the files there are: a stat of each says whether one was edited, with no
 * directory read. A folder that changed (a test or an editor's file added beside the sources) is
 * answered by listing the sources again.
 */
function sourcesAsStamped(root, stamp) {
  const base = join(root, "/");
  for (const [dir, mtime] of stamp.dirs) {
    const found = statSync(base + dir, { throwIfNoEntry: false });
    if ((found ? found.mtimeMs : null) !== mtime) {
      return JSON.stringify(sourcesNow(root).files) === JSON.stringify(stamp.files);
    }
  }
  for (const [file, size, mtime] of stamp.files) {
    const found = statSync(base + file, { throwIfNoEntry: false });
    if (found ? found.size !== size || found.mtimeMs !== mtime : size !== null) return false;
  }
  return true;
}

/** True when `buildDir` (dist/ of the clone at `root`) holds a build of the sources as they are now. */
function buildIsFresh(root, buildDir) {
  let text;
  try {
    text = readFileSync(join(buildDir, STAMP), "utf8");
  } catch {
    return false;
  }
  const newline = text.indexOf("\n");
  if (text.slice(0, newline) !== FORMAT) return false;
  return sourcesAsStamped(root, JSON.parse(text.slice(newline + 1)));
}

module.exports = { SOURCE_FOLDERS, BUILD_CONFIGS, STAMP, sourceFingerprint, buildIsFresh };
