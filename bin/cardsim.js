#!/usr/bin/env node
// Runs the TypeScript command line through tsx's loader, so a clone runs without a build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli/main.ts");
await main(process.argv);
