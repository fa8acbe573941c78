// Whether a clone's build (dist/) was made from the sources as they are now. Plain JavaScript:
// bin/cardsim.js reads it before anything is compiled. Never shipped (an installed package has no
// sources and always runs its dist/).
//
// The stamp is a fingerprint of every file the build compiles (path, size and modification time
// of each .ts under the layers' folders but their tests, and of the TypeScript configurations),
// taken when the build starts and written into dist/ when it ends. The build is fresh while the
// fingerprint is the same: any edit, checkout, pull, new or deleted file changes it, so a clone
// never runs a stale build. It costs a directory walk and a stat per file, no reading of contents
// and no child process (docs/performance.md).
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

/** The folders tsconfig.build.json compiles. */
export const SOURCE_FOLDERS = [
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
export const BUILD_CONFIGS = ["tsconfig.json", "tsconfig.build.json"];
/** Where the build writes its stamp (inside the folder it builds, so it goes with it). */
export const STAMP = ".build-stamp";

/** The fingerprint of the sources under `root` as they are now. */
export function sourceFingerprint(root) {
  const hash = createHash("sha1");
  const add = (path, stat) => hash.update(`${path}\0${stat.size}\0${stat.mtimeMs}\n`);
  for (const file of BUILD_CONFIGS) add(file, statSync(join(root, file), { throwIfNoEntry: false }) ?? {});
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
  return hash.digest("hex");
}

/** True when `buildDir` (dist/ of the clone at `root`) holds a build of the sources as they are now. */
export function buildIsFresh(root, buildDir) {
  let stamp;
  try {
    stamp = readFileSync(join(buildDir, STAMP), "utf8").trim();
  } catch {
    return false;
  }
  return stamp === sourceFingerprint(root);
}
