import { spawnSync } from "node:child_process";
import {
  appendFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../../tools/packedPackage.js";

/**
 * bin/cardsim.js and tools/build.js on a clone in miniature: the real launcher and build script,
 * the real tsc and tsx (this repository's node_modules), and a one-file cli/ whose main says
 * which file it runs from (the TypeScript source or the build's JavaScript).
 */
// Each step starts tsc or tsx afresh: seconds each on a busy machine.
describe(
  "a clone runs its build while the build matches the sources, and the sources otherwise",
  { timeout: 180_000 },
  () => {
    let clone: string;
    const main = () => join(clone, "cli", "main.ts");

    /** Which file the command ran from: "sources" (cli/main.ts through tsx) or "build" (dist/). */
    function ranFrom(env: Record<string, string> = {}, arg = "--version"): string {
      const run = spawnSync(process.execPath, [join(clone, "bin", "cardsim.js"), arg], {
        cwd: clone,
        env: { ...process.env, ...env },
        encoding: "utf8",
      });
      expect(run.status, run.stderr).toBe(0);
      return run.stdout.trim();
    }
    function build(...args: string[]) {
      return spawnSync(process.execPath, [join(clone, "tools", "build.js"), ...args], {
        cwd: clone,
        encoding: "utf8",
      });
    }

    beforeAll(() => {
      clone = mkdtempSync(join(tmpdir(), "cardsim-clone-"));
      for (const file of [
        "bin/cardsim.js",
        "bin/package.json",
        "tools/build.js",
        "tools/buildStamp.cjs",
        "tools/bundleCli.js",
      ]) {
        cpSync(join(REPO, file), join(clone, file));
      }
      symlinkSync(join(REPO, "node_modules"), join(clone, "node_modules"), "dir");
      writeFileSync(join(clone, "package.json"), JSON.stringify({ name: "clone", type: "module" }));
      writeFileSync(join(clone, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true } }));
      writeFileSync(
        join(clone, "tsconfig.build.json"),
        JSON.stringify({
          extends: "./tsconfig.json",
          compilerOptions: { module: "NodeNext", target: "ES2022", types: [], rootDir: ".", outDir: "dist" },
          include: ["cli", "core"],
        }),
      );
      mkdirSync(join(clone, "cli"));
      mkdirSync(join(clone, "core"));
      // `--lazy` loads a module of another folder when it runs, as the real subcommands do.
      writeFileSync(join(clone, "core", "lazy.ts"), "export const lazy = import.meta.url;\n");
      writeFileSync(
        main(),
        'export async function main(argv: readonly string[]): Promise<void> {\n  if (argv.includes("--lazy")) return console.log((await import("../core/lazy.js")).lazy);\n  console.log(import.meta.url.endsWith(".ts") ? "sources" : "build");\n}\n',
      );
    });

    afterAll(() => {
      rmSync(clone, { recursive: true, force: true });
    });

    it("runs the sources before any build", () => {
      expect(ranFrom()).toBe("sources");
    });

    it("runs the build once it is made, and a second build keeps it", () => {
      const made = build();
      expect(made.status, made.stderr).toBe(0);
      expect(existsSync(join(clone, "dist", ".build-stamp"))).toBe(true);
      expect(ranFrom()).toBe("build");
      expect(build().stdout).toMatch(/already built from the sources as they are/);
      expect(ranFrom()).toBe("build");
    });

    it("runs the start path from one bundled file, and what it loads later from the build", () => {
      expect(existsSync(join(clone, "dist", "cli", "cardsim.cjs"))).toBe(true);
      expect(ranFrom({}, "--lazy")).toMatch(/\/dist\/core\/lazy\.js$/);
    });

    it("runs the sources after an edit, until the next build", () => {
      appendFileSync(main(), "// an edit\n");
      expect(ranFrom()).toBe("sources");
      expect(build().status).toBe(0);
      expect(ranFrom()).toBe("build");
    });

    it("runs the sources after a file is added or deleted, until the next build", () => {
      writeFileSync(join(clone, "cli", "extra.ts"), "export const extra = 1;\n");
      expect(ranFrom()).toBe("sources");
      expect(build().status).toBe(0);
      expect(ranFrom()).toBe("build");
      rmSync(join(clone, "cli", "extra.ts"));
      expect(ranFrom()).toBe("sources");
      expect(build().status).toBe(0);
    });

    it("keeps running the build when only a test file beside the sources changes", () => {
      writeFileSync(join(clone, "cli", "main.test.ts"), "// a test, not built\n");
      expect(ranFrom()).toBe("build");
    });

    it("runs what CARDSIM_DIST asks for", () => {
      expect(ranFrom({ CARDSIM_DIST: "0" })).toBe("sources");
      appendFileSync(main(), "// another edit\n");
      expect(ranFrom({ CARDSIM_DIST: "1" })).toBe("build");
      expect(build().status).toBe(0);
    });

    it("a failed build leaves no stamp: the sources run", () => {
      appendFileSync(main(), 'export const wrong: number = "text";\n');
      const failed = build();
      expect(failed.status).not.toBe(0);
      expect(failed.stderr).toMatch(/build failed: dist\/ is left as it was/);
      expect(ranFrom()).toBe("sources");
    });

    it("an installed package (no sources beside bin/) runs its build whatever the stamp", () => {
      rmSync(join(clone, "cli"), { recursive: true });
      rmSync(join(clone, "dist", ".build-stamp"));
      expect(ranFrom()).toBe("build");
    });
  },
);
