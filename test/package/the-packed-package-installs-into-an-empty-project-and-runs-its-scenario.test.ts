import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../../tools/packedPackage.js";
import { packedProject, runInPackedProject } from "./support/packedProject.js";

const run = promisify(execFile);

/** The worked example of docs/harness.md: a firmware team's test importing only cardsim/harness. */
const WORKED_EXAMPLE = join(REPO, "test/harness/the-worked-example-of-docs-harness-md-runs.test.ts");

describe("npm pack, then npm install of the tarball into an empty project", () => {
  let packed: { tarball: string };
  let project: string;

  // Packed and installed once per run, for every test file of test/package (support/packOnce.ts).
  beforeAll(() => {
    const shared = packedProject();
    packed = shared;
    project = shared.project;
  });

  it("holds compiled JavaScript with declarations, the bin and the docs, and no sources or tests", async () => {
    const { stdout } = await run("tar", ["tzf", packed.tarball]);
    const files = stdout.trim().split("\n");
    expect(files).toContain("package/bin/cardsim.js");
    // The launcher is CommonJS (bin/package.json) and runs the start bundle (tools/bundleCli.js).
    expect(files).toContain("package/bin/package.json");
    expect(files).toContain("package/dist/cli/cardsim.cjs");
    expect(files).toContain("package/dist/harness/index.js");
    expect(files).toContain("package/dist/harness/index.d.ts");
    expect(files).toContain("package/dist/runtime/index.d.ts");
    expect(files).toContain("package/docs/harness.md");
    expect(files.filter((f) => /\.ts$/.test(f) && !f.endsWith(".d.ts"))).toEqual([]);
    expect(files.filter((f) => /(^|\/)test\//.test(f))).toEqual([]);
  });

  it("runs the harness's worked example from the project's own vitest suite", async () => {
    const { tests, output } = await runInPackedProject("worked-example", {
      "test/interval.test.ts": await readFile(WORKED_EXAMPLE, "utf8"),
    });
    expect(
      tests.map((t) => [t.status, t.failures]),
      output,
    ).toEqual([["passed", []]]);
  });

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
        include: ["start.ts"],
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
