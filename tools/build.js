// `npm run build`: compiles every layer to dist/ (tsc -p tsconfig.build.json) and stamps it with
// the fingerprint of the sources it was made from (tools/buildStamp.cjs), so that bin/cardsim.js
// runs it only while it matches them; the command line's start path is bundled into one file
// (tools/bundleCli.js). Run by `prepare`, so `npm ci` / `npm install` in a clone and
// `npm pack` build it. A build that is already fresh is kept (`--force` rebuilds anyway).
//
// The fingerprint is taken before compiling: a file edited during the build leaves it stale. The
// build is made in a folder of its own and put in place by renames, so a command that is running
// from dist/ meanwhile never sees it half-written, and a failed build leaves no stamp.
import { spawnSync } from "node:child_process";
import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildIsFresh, sourceFingerprint, STAMP } from "./buildStamp.cjs";
import { bundleCli } from "./bundleCli.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = join(root, "dist");

if (!process.argv.includes("--force") && buildIsFresh(root, dist)) {
  console.log("dist/ is already built from the sources as they are (npm run build -- --force rebuilds it)");
  process.exit(0);
}
const fingerprint = sourceFingerprint(root);
const building = join(root, `.dist-${process.pid}`);
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const run = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json", "--outDir", building], {
  cwd: root,
  stdio: "inherit",
});
if (run.status !== 0) {
  rmSync(building, { recursive: true, force: true });
  console.error(
    "build failed: dist/ is left as it was; the cardsim command runs the sources through tsx meanwhile",
  );
  process.exit(run.status ?? 1);
}
try {
  await bundleCli(building, root);
} catch (error) {
  rmSync(building, { recursive: true, force: true });
  console.error(
    `build failed: the command line's bundle could not be made (${error.message}); dist/ is left as it was`,
  );
  process.exit(1);
}
writeFileSync(join(building, STAMP), fingerprint);
const old = join(root, `.dist-old-${process.pid}`);
if (existsSync(dist)) renameSync(dist, old);
renameSync(building, dist);
rmSync(old, { recursive: true, force: true });
console.log("dist/ built");
