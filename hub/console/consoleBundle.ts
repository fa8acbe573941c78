import { mkdir, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The console's bundle: its files by name (`console.js`, `console.css`). */
export type ConsoleFiles = ReadonlyMap<string, Buffer>;

const HERE = fileURLToPath(import.meta.url);
/** True in a clone run from its sources (this file is TypeScript), false in an installed build. */
const FROM_SOURCES = HERE.endsWith(".ts");
/** The repository (clone) or the package's dist/ (installed). */
const ROOT = resolve(dirname(HERE), FROM_SOURCES ? "../.." : "..");

/** Where the bundle is: dist/console of the clone, or of the installed package. */
export const CONSOLE_DIST = FROM_SOURCES ? join(ROOT, "dist", "console") : join(ROOT, "console");
/** The console's sources (a clone only). */
export const CONSOLE_SOURCES = join(ROOT, "console");

async function newestChange(dir: string): Promise<number> {
  let newest = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? await newestChange(path) : (await stat(path)).mtimeMs);
  }
  return newest;
}

async function mtime(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
}

/**
 * Bundles the console (console/main.ts and what it imports, its CSS) into `outDir` with esbuild,
 * minified, for browsers of the last few years. Each file is written under a temporary name and
 * renamed, so a hub reading the bundle meanwhile finds the old file or the whole new one.
 */
export async function buildConsole(outDir = CONSOLE_DIST): Promise<string[]> {
  // esbuild is a development dependency: only a clone (or `npm run build`) bundles.
  const esbuild = await import("esbuild");
  const result = await esbuild.build({
    entryPoints: { console: join(CONSOLE_SOURCES, "main.ts") },
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2020", "chrome100", "firefox100", "safari15"],
    outdir: outDir,
    write: false,
    legalComments: "none",
    logLevel: "silent",
  });
  await mkdir(outDir, { recursive: true });
  const written: string[] = [];
  for (const file of result.outputFiles) {
    const temp = `${file.path}.${process.pid}.tmp`;
    await writeFile(temp, file.contents);
    await rename(temp, file.path);
    written.push(file.path);
  }
  return written;
}

/** True when the clone's bundle is missing or older than a source of the console. */
export async function bundleStale(): Promise<boolean> {
  if (!FROM_SOURCES) return false;
  const built = await mtime(join(CONSOLE_DIST, "console.js"));
  if (built === undefined) return true;
  return (await newestChange(CONSOLE_SOURCES)) > built;
}

let loading: Promise<ConsoleFiles> | undefined;

/**
 * The console's files, read once per process: in a clone, built first when missing or stale (so
 * a clone serves the console with no manual step); in an installed package, the shipped build.
 */
export function consoleFiles(): Promise<ConsoleFiles> {
  loading ??= (async () => {
    if (await bundleStale()) await buildConsole();
    const files = new Map<string, Buffer>();
    for (const name of ["console.js", "console.css"])
      files.set(name, await readFile(join(CONSOLE_DIST, name)));
    return files;
  })();
  loading.catch(() => (loading = undefined));
  return loading;
}
