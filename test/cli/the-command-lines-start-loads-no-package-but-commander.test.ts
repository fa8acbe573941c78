import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CARDSIM_BIN } from "../support/cliProcess.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// tools/buildStamp.js is plain JavaScript (bin/cardsim.js reads it before anything is compiled).
const { buildIsFresh } = (await import(new URL("../../tools/buildStamp.js", import.meta.url).href)) as {
  buildIsFresh(root: string, buildDir: string): boolean;
};
const fresh = buildIsFresh(ROOT, join(ROOT, "dist"));

/**
 * What `cardsim --help`, `--version` and a mistake load before they answer, from the build (its
 * bundled start path, tools/bundleCli.js): commander and nothing else of node_modules. A
 * subcommand that imports a package (YAML, Ajv, fastify, SQLite...) at the top of its file puts
 * that package's load into every start of the command line (docs/performance.md, "Start-up").
 */
describe.skipIf(!fresh)("the command line's start", () => {
  const dir = mkdtempSync(join(tmpdir(), "cardsim-start-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function packagesLoaded(args: string[]): string[] {
    const log = join(dir, `${args.join("_")}.log`);
    const hook = join(dir, "hook.mjs");
    const resolver = `export async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + "\\n"); return r; }`;
    writeFileSync(
      hook,
      `import { register } from "node:module";\nregister("data:text/javascript," + encodeURIComponent(${JSON.stringify(`import { appendFileSync } from "node:fs"; ${resolver}`)}));\n`,
    );
    writeFileSync(log, "");
    const run = spawnSync(process.execPath, ["--import", hook, CARDSIM_BIN, ...args], {
      env: { ...process.env, CARDSIM_DIST: "1" },
      encoding: "utf8",
    });
    expect(run.error).toBeUndefined();
    const urls = readFileSync(log, "utf8").split("\n").filter(Boolean);
    expect(urls.some((u) => u.endsWith("/dist/cli/cardsim.js"))).toBe(true);
    return [...new Set(urls.flatMap((u) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1] ?? []))];
  }

  it.each([["--help"], ["--version"], ["fleet", "--modules", "many"], ["hub", "--bogus"]])(
    "cardsim %s loads commander only",
    (...args: string[]) => {
      expect(packagesLoaded(args)).toEqual(["commander"]);
    },
  );
});
