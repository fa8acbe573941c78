import { existsSync } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import {
  copyNativeBuild,
  installIntoEmptyProject,
  linkTool,
  packRepository,
} from "../../../tools/packedPackage.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** The empty project the packed tarball was installed into, and the tarball. */
    packedProject: { project: string; tarball: string };
  }
}

/**
 * The package project's global setup: `npm pack` once per test run, the tarball installed once
 * into an empty project (with this repository's vitest and typescript linked in), shared by every
 * test file of test/package/ through `inject("packedProject")`. Runs only when a package test does.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const packed = await packRepository();
  try {
    const dir = await installIntoEmptyProject(packed.tarball, packed.dir);
    // The hub's SQLite store (a scenario's own hub), built as this repository's install built it.
    await copyNativeBuild(dir, "better-sqlite3");
    await linkTool(dir, "vitest");
    await linkTool(dir, "typescript");
    // Node's types, for tests that start a server of their own (unless a dependency brought them).
    if (!existsSync(join(dir, "node_modules/@types/node"))) {
      await mkdir(join(dir, "node_modules/@types"), { recursive: true });
      await linkTool(dir, "@types/node");
    }
    project.provide("packedProject", { project: dir, tarball: packed.tarball });
  } catch (error) {
    await rm(packed.dir, { recursive: true, force: true });
    throw error;
  }
  return () => rm(packed.dir, { recursive: true, force: true });
}
