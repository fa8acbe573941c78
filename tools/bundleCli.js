// The command line's start path in one CommonJS file: `dist/cli/cardsim.cjs`, made by `npm run
// build` from the compiled `dist/cli/main.js`, everything it imports statically and commander,
// the one package it needs. bin/cardsim.js requires it: Node then reads one file, resolves no
// package and starts no ES module loader before it can answer `--help`, `--version` or parse a
// command (docs/performance.md, "Command start-up"). What a subcommand loads only when it runs
// (`await import(...)`: the hub, the module, the stores, their packages) stays in dist/ and
// node_modules as it is, imported from there when it runs.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { build } from "esbuild";

/** The file bin/cardsim.js runs, inside the build folder. */
export const CLI_BUNDLE = "cli/cardsim.cjs";
/** The one package the start path holds; every other stays in node_modules. */
const BUNDLED_PACKAGES = new Set(["commander"]);
/**
 * What a subcommand imports when it runs that the bundle holds all the same (as a module of its
 * own, run only when imported): `cardsim req`'s line client, a few small files with no package,
 * so that `req` starts no ES module loader either.
 */
const BUNDLED_LAZY = new Set(["hil/HostLineClient.js"]);
/**
 * Node built-ins that the start path imports, that Node has not loaded before it runs, and that
 * `--help`, `--version` and `req` never use: commander's node:child_process (for subcommands that
 * are programs of their own; cardsim has none) and node:fs/promises (files that subcommands read;
 * ten of Node's modules). Each is required the first time one of its exports is used.
 */
const LAZY_BUILTINS = new Set(["node:child_process", "node:fs/promises"]);
/** esbuild's namespace of those. */
const LAZY = "required-when-used";

/** A module with the exports of built-in `name` (as this Node has them), each requiring it when read. */
function requiredWhenUsed(name) {
  const names = Object.keys(createRequire(import.meta.url)(name));
  return `let loaded;
const load = () => (loaded ??= require(${JSON.stringify(name)}));
for (const key of ${JSON.stringify(names)})
  Object.defineProperty(exports, key, { enumerable: true, get: () => load()[key] });`;
}

/**
 * An esbuild plugin: lazy imports stay imports of dist/ (but BUNDLED_LAZY), packages but commander
 * stay packages, and LAZY_BUILTINS are required when used.
 */
function startPathOnly(buildDir, outfile) {
  return {
    name: "start-path-only",
    setup(builder) {
      builder.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        const fromBuild = relative(buildDir, resolve(args.resolveDir, args.path)).replaceAll("\\", "/");
        if (BUNDLED_LAZY.has(fromBuild)) return undefined;
        // Loaded from dist/ when it runs: its path, seen from the bundle's folder.
        let path = relative(dirname(outfile), resolve(args.resolveDir, args.path)).replaceAll("\\", "/");
        if (!path.startsWith(".")) path = `./${path}`;
        return { path, external: true };
      });
      builder.onResolve({ filter: /^node:/ }, (args) => {
        const lazy =
          LAZY_BUILTINS.has(args.path) && args.kind !== "dynamic-import" && args.namespace !== LAZY;
        return lazy ? { path: args.path, namespace: LAZY } : undefined;
      });
      builder.onLoad({ filter: /.*/, namespace: LAZY }, (args) => ({
        contents: requiredWhenUsed(args.path),
        loader: "js",
      }));
      // A package (or a Node built-in): required from node_modules when the bundle runs, unless
      // it is commander imported by the start path itself.
      builder.onResolve({ filter: /^[^./]/ }, (args) => {
        const bundled = BUNDLED_PACKAGES.has(args.path) && args.kind !== "dynamic-import";
        return bundled ? undefined : { path: args.path, external: true };
      });
    },
  };
}

/**
 * Bundles `<buildDir>/cli/main.js` into `<buildDir>/cli/cardsim.cjs`, with cardsim's version
 * (`root`'s package.json) written in, so that `--version` reads no file.
 */
export async function bundleCli(buildDir, root) {
  const outfile = resolve(buildDir, CLI_BUNDLE);
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  await build({
    entryPoints: [resolve(buildDir, "cli/main.js")],
    outfile,
    bundle: true,
    format: "cjs",
    platform: "node",
    target: "node20",
    plugins: [startPathOnly(buildDir, outfile)],
    // The modules' own `import.meta.url` is the bundle's file; no other use of import.meta works
    // in CommonJS, so any other fails the build rather than the command.
    banner: { js: 'var __cardsimBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: {
      "import.meta.url": "__cardsimBundleUrl",
      ...(version ? { CARDSIM_BUNDLED_VERSION: JSON.stringify(version) } : {}),
    },
    logOverride: { "empty-import-meta": "error" },
    // No comments nor indentation to read at every start (names are kept, for the stacks that
    // CARDSIM_DEBUG=1 prints).
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
  });
}
