// `npm run build:console`: bundles the browser console into dist/console (esbuild).
import { buildConsole } from "../hub/console/consoleBundle.js";

const written = await buildConsole();
process.stdout.write(
  `console bundled: ${written.map((p) => p.replace(`${process.cwd()}/`, "")).join(", ")}\n`,
);
