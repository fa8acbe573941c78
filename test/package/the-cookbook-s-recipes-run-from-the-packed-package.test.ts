import { describe, expect, it } from "vitest";
import { REPO } from "../../tools/packedPackage.js";
import { blockTestName, docBlocks } from "../support/docBlocks.js";
import { runInPackedProject, typeCheckInPackedProject } from "./support/packedProject.js";

/** Issue 24, point 5: docs/cookbook.md's recipes, each a test run from the packed package. */
describe("docs/cookbook.md, from the packed package", () => {
  const recipes = docBlocks(REPO).filter((b) => b.file === "docs/cookbook.md" && b.lang === "ts");

  it("has at least twelve recipes, every one marked to run", () => {
    expect(recipes.length).toBeGreaterThanOrEqual(12);
    expect(recipes.filter((b) => !b.runs).map((b) => b.line)).toEqual([]);
  });

  it("every recipe passes in an empty project and type-checks against the package's declarations", async () => {
    const files = Object.fromEntries(recipes.map((b) => [blockTestName(b), b.text]));
    const { tests, output } = await runInPackedProject("cookbook", files);
    const failed = tests.filter((t) => t.status !== "passed");
    expect(
      failed.map((t) => `${t.file} > ${t.name}: ${t.failures.join("\n")}`),
      output,
    ).toEqual([]);
    expect(new Set(tests.map((t) => t.file)).size).toBe(recipes.length);
    await typeCheckInPackedProject("cookbook");
  });
});
