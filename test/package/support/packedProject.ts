import { execFile } from "node:child_process";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { expect, inject } from "vitest";
import { REPO } from "../../../tools/packedPackage.js";

const run = promisify(execFile);

/** The empty project the packed package was installed into (test/package/support/packOnce.ts). */
export function packedProject(): { project: string; tarball: string } {
  return inject("packedProject");
}

/** One test of a run in the packed project: its full name, status and failure messages. */
export interface ProjectTest {
  readonly file: string;
  readonly name: string;
  readonly status: string;
  readonly failures: readonly string[];
}

const CONFIG = `import { defineConfig } from "vitest/config";
// A firmware team's own settings: scenarios on a fake clock can take a few seconds each.
export default defineConfig({ test: { testTimeout: 120_000, hookTimeout: 120_000 } });
`;

/**
 * Writes `files` (relative path to text) into `folder` of the packed project, as a team writes its
 * own tests, and runs that folder with the project's vitest (its own config, the package as
 * installed). Resolves to every test's outcome; the output is kept for failure messages.
 */
export async function runInPackedProject(
  folder: string,
  files: Readonly<Record<string, string>>,
): Promise<{ tests: ProjectTest[]; output: string }> {
  const { project } = packedProject();
  const root = join(project, folder);
  await rm(root, { recursive: true, force: true });
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  await writeFile(join(root, "vitest.config.ts"), CONFIG);
  const report = join(root, "report.json");
  let output: string;
  try {
    const done = await run(
      process.execPath,
      [
        join(project, "node_modules/vitest/vitest.mjs"),
        "run",
        "--root",
        root,
        "--reporter=json",
        `--outputFile=${report}`,
      ],
      {
        cwd: root,
        env: { ...process.env, CI: "1", NO_COLOR: "1", FORCE_COLOR: "0" },
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    output = done.stdout + done.stderr;
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    output = `${e.stdout ?? ""}${e.stderr ?? ""}`;
  }
  let parsed: {
    testResults?: {
      name: string;
      message?: string;
      assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
    }[];
  };
  try {
    parsed = JSON.parse(await readFile(report, "utf8")) as typeof parsed;
  } catch {
    throw new Error(`the packed project's vitest wrote no report:\n${output}`);
  }
  const tests: ProjectTest[] = [];
  for (const file of parsed.testResults ?? []) {
    const name = file.name.slice(root.length + 1);
    if (file.assertionResults.length === 0)
      tests.push({
        file: name,
        name: "(file)",
        status: "failed",
        failures: [file.message ?? "no tests ran"],
      });
    for (const t of file.assertionResults)
      tests.push({ file: name, name: t.fullName, status: t.status, failures: t.failureMessages });
  }
  return { tests, output };
}

/** Type-checks `folder` of the packed project against the package's declarations (tsc, strict). */
export async function typeCheckInPackedProject(folder: string): Promise<void> {
  const { project } = packedProject();
  const root = join(project, folder);
  await writeFile(
    join(root, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
      },
      include: ["**/*.ts"],
      exclude: ["vitest.config.ts"],
    }),
  );
  try {
    await run(process.execPath, [join(project, "node_modules/typescript/bin/tsc"), "-p", root], {
      cwd: root,
    });
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    throw new Error(`tsc in the packed project:\n${e.stdout ?? ""}${e.stderr ?? ""}`, { cause: error });
  }
}

/**
 * Runs test files of this repository that are written as a firmware team writes them (importing
 * only `cardsim` and `cardsim/harness`) in `folder` of the packed project, and expects every test
 * in them to pass there: at least `atLeast` of them.
 */
export async function expectToPassFromThePackedPackage(
  folder: string,
  repoFiles: readonly string[],
  atLeast: number,
): Promise<ProjectTest[]> {
  const files: Record<string, string> = {};
  for (const file of repoFiles) {
    const text = await readFile(join(REPO, file), "utf8");
    expect(text, `${file} imports only the package`).not.toMatch(/from "\.\.?\//);
    files[`test/${file.slice(file.lastIndexOf("/") + 1)}`] = text;
  }
  const { tests, output } = await runInPackedProject(folder, files);
  const failed = tests.filter((t) => t.status !== "passed");
  expect(
    failed.map((t) => `${t.file} > ${t.name}: ${t.failures.join("\n")}`),
    output,
  ).toEqual([]);
  expect(tests.length).toBeGreaterThanOrEqual(atLeast);
  return tests;
}
