import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { CARDSIM_BIN } from "../support/cliProcess.js";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// tools/buildStamp.cjs is plain CommonJS (bin/cardsim.js requires it before anything is compiled).
const { buildIsFresh } = createRequire(import.meta.url)("../../tools/buildStamp.cjs") as {
  buildIsFresh(root: string, buildDir: string): boolean;
};
const fresh = buildIsFresh(ROOT, join(ROOT, "dist"));

/** What one start of the command loaded: its CommonJS files and Node's own modules. */
interface Loaded {
  files: string[];
  builtins: string[];
}

/**
 * What `cardsim --help`, `--version` and a mistake load before they answer, from the build (its
 * start path bundled into one CommonJS file with commander, tools/bundleCli.js): that file and
 * nothing of node_modules, no ES module (Node's ES module loader never starts), and none of the
 * Node modules the start path does not use. A subcommand that imports a package (YAML, Ajv,
 * fastify, SQLite...) or a costly built-in at the top of its file puts its load into every start
 * of the command line (docs/performance.md, "Command start-up").
 */
describe.skipIf(!fresh)("the command line's start", () => {
  const dir = mkdtempSync(join(tmpdir(), "cardsim-start-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  function loaded(args: string[]): Loaded {
    const log = join(dir, `${args.join("_")}.json`);
    const preload = join(dir, "preload.cjs");
    writeFileSync(
      preload,
      `process.on("exit", () => require("node:fs").writeFileSync(${JSON.stringify(log)}, JSON.stringify({ files: Object.keys(require.cache), builtins: process.moduleLoadList })));\n`,
    );
    const run = spawnSync(process.execPath, ["--require", preload, CARDSIM_BIN, ...args], {
      env: { ...process.env, CARDSIM_DIST: "1" },
      encoding: "utf8",
    });
    expect(run.error).toBeUndefined();
    const { files, builtins } = JSON.parse(readFileSync(log, "utf8")) as Loaded;
    return { files: files.filter((f) => f !== preload), builtins };
  }

  it.each([["--help"], ["--version"], ["fleet", "--modules", "many"], ["hub", "--bogus"]])(
    "cardsim %s loads its bundle and nothing of node_modules",
    (...args: string[]) => {
      const { files, builtins } = loaded(args);
      expect(files.map((f) => f.slice(ROOT.length).replaceAll("\\", "/"))).toEqual([
        "bin/cardsim.js",
        "dist/cli/cardsim.cjs",
      ]);
      expect(builtins).not.toContain("NativeModule internal/modules/esm/loader");
      for (const unused of ["child_process", "net", "fs/promises"])
        expect(builtins).not.toContain(`NativeModule ${unused}`);
    },
  );
});
