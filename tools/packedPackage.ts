/**
 * Development tools shared by the tests and the benchmarks (never shipped, never imported by
 * product code): packing this repository and installing the tarball into an empty project.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { cp, mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
export const REPO = fileURLToPath(new URL("..", import.meta.url));

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  dev?: boolean;
  [key: string]: unknown;
}

/** `npm pack` of this repository (its `prepare` builds dist/ unless it is fresh) into a new temporary folder. */
export async function packRepository(): Promise<{ dir: string; tarball: string }> {
  const dir = await mkdtemp(join(tmpdir(), "cardsim-pack-"));
  await run("npm", ["pack", "--pack-destination", dir], { cwd: REPO, maxBuffer: 64 * 1024 * 1024 });
  const tarball = (await readdir(dir)).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack left no tarball in ${dir}`);
  return { dir, tarball: join(dir, tarball) };
}

/**
 * Installs `tarball` into a new, empty project in `dir`, from the npm cache only (`npm ci
 * --offline`). The project's lock file is made from this repository's: the package's run-time
 * dependencies at the versions this repository installed, so every tarball is in the cache
 * (`npm ci` put them there) and nothing is fetched, while npm itself resolves, extracts, links
 * the bin and checks every integrity as for any install. Install scripts are skipped (they build
 * better-sqlite3 and i2c-bus, which a harness scenario does not load) and optional dependencies
 * left out. Returns the project folder.
 */
export async function installIntoEmptyProject(tarball: string, dir: string): Promise<string> {
  const project = join(dir, "firmware-project");
  await mkdir(project, { recursive: true });
  const repoPackage = JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as {
    version: string;
  };
  const repoLock = JSON.parse(await readFile(join(REPO, "package-lock.json"), "utf8")) as {
    packages: Record<string, LockEntry>;
  };
  const { stdout: registryText } = await run("npm", ["config", "get", "registry"], { cwd: REPO });
  const registry = registryText.trim().replace(/\/$/, "");
  const spec = `file:../${basename(tarball)}`;
  const integrity = `sha512-${createHash("sha512")
    .update(await readFile(tarball))
    .digest("base64")}`;
  const root = repoLock.packages[""]!;
  const packages: Record<string, LockEntry> = {
    "": { name: "firmware-project", dependencies: { cardsim: spec } },
    "node_modules/cardsim": {
      version: repoPackage.version,
      resolved: spec,
      integrity,
      dependencies: root["dependencies"],
      optionalDependencies: root["optionalDependencies"],
      bin: root["bin"],
      engines: root["engines"],
    },
  };
  for (const [path, entry] of Object.entries(repoLock.packages)) {
    if (path === "" || entry.dev || !path.startsWith("node_modules/")) continue;
    const name = path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length);
    packages[path] = {
      ...entry,
      resolved: entry.resolved ?? `${registry}/${name}/-/${name.split("/").pop()}-${entry.version}.tgz`,
    };
  }
  await writeFile(
    join(project, "package.json"),
    JSON.stringify(
      {
        name: "firmware-project",
        private: true,
        type: "module",
        dependencies: { cardsim: spec },
      },
      null,
      2,
    ),
  );
  await writeFile(
    join(project, "package-lock.json"),
    JSON.stringify({ name: "firmware-project", lockfileVersion: 3, requires: true, packages }, null, 2),
  );
  // Optional dependencies (i2c-bus, for the rig's self-test on a Pi) are left out.
  await run("npm", ["ci", "--offline", "--ignore-scripts", "--omit=optional", "--no-audit", "--no-fund"], {
    cwd: project,
    maxBuffer: 64 * 1024 * 1024,
  });
  return project;
}

/**
 * Links this repository's copy of a development tool (vitest, typescript) into the project: the
 * very version this repository tests with, and offline (vitest alone has a hundred dependencies,
 * native ones among them, that `npm ci` here placed by platform).
 */
export async function linkTool(project: string, name: string): Promise<void> {
  await symlink(join(REPO, "node_modules", name), join(project, "node_modules", name), "dir");
}

/**
 * Gives the project's copy of a native dependency (better-sqlite3) the binary this repository's
 * install built for the same version on this machine, in place of its install script (skipped by
 * `installIntoEmptyProject`), which would build the very same from source, offline or not.
 */
export async function copyNativeBuild(
  project: string,
  name: string,
  binary = "better_sqlite3.node",
): Promise<void> {
  const ours = JSON.parse(await readFile(join(REPO, "node_modules", name, "package.json"), "utf8")) as {
    version: string;
  };
  const theirs = JSON.parse(await readFile(join(project, "node_modules", name, "package.json"), "utf8")) as {
    version: string;
  };
  if (ours.version !== theirs.version)
    throw new Error(`${name} ${theirs.version} in the project, ${ours.version} here: no binary to give it`);
  const release = join("node_modules", name, "build", "Release");
  await mkdir(join(project, release), { recursive: true });
  await cp(join(REPO, release, binary), join(project, release, binary));
}
