// The command line's start path in one file: `dist/cli/cardsim.js`, made by `npm run build` from
// the compiled `dist/cli/main.js` and everything it imports statically (its own code, not the
// packages, which stay in node_modules so that every module shares one commander). What a
// subcommand loads only when it runs (`await import(...)`: the hub, the module, the stores) stays
// in dist/ as compiled, imported from there when it runs. Node then reads and resolves one file
// in place of some forty before it can answer `--help`, `--version` or parse a command
// (docs/performance.md, "Start-up").
import { dirname, relative, resolve } from "node:path";
import { build } from "esbuild";

/** The file bin/cardsim.js runs, inside the build folder. */
export const CLI_BUNDLE = "cli/cardsim.js";

/** Bundles `<buildDir>/cli/main.js` into `<buildDir>/cli/cardsim.js`. */
export async function bundleCli(buildDir) {
  const outfile = resolve(buildDir, CLI_BUNDLE);
  const lazyStaysLazy = {
    name: "lazy-imports-stay-in-dist",
    setup(builder) {
      builder.onResolve({ filter: /^\.\.?\// }, (args) => {
        if (args.kind !== "dynamic-import") return undefined;
        // Loaded from dist/ when it runs: its path, seen from the bundle's folder.
        let path = relative(dirname(outfile), resolve(args.resolveDir, args.path)).replaceAll("\\", "/");
        if (!path.startsWith(".")) path = `./${path}`;
        return { path, external: true };
      });
    },
  };
  await build({
    entryPoints: [resolve(buildDir, "cli/main.js")],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    plugins: [lazyStaysLazy],
    logLevel: "warning",
  });
}
