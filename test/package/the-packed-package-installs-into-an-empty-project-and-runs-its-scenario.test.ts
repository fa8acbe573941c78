import { execFile } from "node:child_process";
import { copyFile, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installIntoEmptyProject, linkTool, packRepository, REPO } from "../../tools/packedPackage.js";

const run = promisify(execFile);

/** The worked example of docs/harness.md: a firmware team's test importing only cardsim/harness. */
const WORKED_EXAMPLE = join(REPO, "test/harness/the-worked-example-of-docs-harness-md-runs.test.ts");

describe("npm pack, then npm install of the tarball into an empty project", () => {
  let packed: { dir: string; tarball: string };
  let project: string;

  beforeAll(async () => {
    packed = await packRepository();
    project = await installIntoEmptyProject(packed.tarball, packed.dir);
    await linkTool(project, "vitest");
    await linkTool(project, "typescript");
  }, 240_000);

  afterAll(async () => {
    if (packed) await rm(packed.dir, { recursive: true, force: true });
  });

  it("holds compiled JavaScript with declarations, the bin and the docs, and no sources or tests", async () => {
    const { stdout } = await run("tar", ["tzf", packed.tarball]);
    const files = stdout.trim().split("\n");
    expect(files).toContain("package/bin/cardsim.js");
    expect(files).toContain("package/dist/harness/index.js");
    expect(files).toContain("package/dist/harness/index.d.ts");
    expect(files).toContain("package/dist/runtime/index.d.ts");
    expect(files).toContain("package/docs/harness.md");
    expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    expect(files.filter((f) => /(^|\/)test\//.test(f))).toEqual([]);
  });

  it("runs the harness's worked example from the project's own vitest suite", async () => {
    await mkdir(join(project, "test"), { recursive: true });
    await copyFile(WORKED_EXAMPLE, join(project, "test", "interval.test.ts"));
    const { stdout } = await run(process.execPath, [join(project, "node_modules/vitest/vitest.mjs"), "run"], {
      cwd: project,
      env: { ...process.env, CI: "1", NO_COLOR: "1", FORCE_COLOR: "0" },
    });
    // eslint-disable-next-line no-control-regex
    expect(stdout.replace(/\u001b\[[0-9;]*m/g, "")).toMatch(/Tests\s+1 passed \(1\)/);
  }, 120_000);

  it("type-checks against the package's declarations (cardsim and cardsim/harness)", async () => {
    await writeFile(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        include: ["test", "start.ts"],
      }),
    );
    await writeFile(
      join(project, "start.ts"),
      [
        'import { startLocal, SimulatedModule, FakeClock, type Clock } from "cardsim";',
        'import { Scenario, NoteCHost } from "cardsim/harness";',
        "const clock: Clock = new FakeClock();",
        "export const kinds = [startLocal, SimulatedModule, Scenario, NoteCHost, clock];",
        "",
      ].join("\n"),
    );
    await run(process.execPath, [join(project, "node_modules/typescript/bin/tsc"), "-p", project], {
      cwd: project,
    });
  }, 120_000);

  it("installs the cardsim command, which runs the compiled JavaScript (no TypeScript at run time)", async () => {
    const bin = join(project, "node_modules/.bin/cardsim");
    const { stdout } = await run(bin, ["--help"], { cwd: project });
    expect(stdout).toMatch(/^Usage: cardsim \[options\] \[command\]/);
    // tsx is not installed in the project: the command could not have compiled anything.
    await expect(readFile(join(project, "node_modules/tsx/package.json"))).rejects.toThrow();
    const entry = await run(
      process.execPath,
      ["-e", 'import("cardsim").then((m) => console.log(typeof m.startLocal, typeof m.startHub))'],
      { cwd: project },
    );
    expect(entry.stdout.trim()).toBe("function function");
  });
});

describe("docs/harness.md", () => {
  it("shows the worked example verbatim, as a user writes it", async () => {
    const doc = await readFile(join(REPO, "docs/harness.md"), "utf8");
    const start = doc.indexOf("```ts\n", doc.indexOf("## A worked example")) + "```ts\n".length;
    const block = doc.slice(start, doc.indexOf("```\n", start));
    const test = (await readFile(WORKED_EXAMPLE, "utf8"))
      .split("\n")
      .filter((l) => !l.startsWith("//"))
      .join("\n")
      .trim();
    expect(block.trim()).toBe(test);
    expect(block).toContain('from "cardsim/harness"');
  });
});
