import { describe, expect, it } from "vitest";
import { REPO } from "../../tools/packedPackage.js";
import { blockTestName, docBlocks } from "../support/docBlocks.js";
import { runInPackedProject, typeCheckInPackedProject } from "./support/packedProject.js";

/**
 * Issue 24, point 3: every block of the README and docs/ marked `<!-- test -->` is a whole test
 * file that runs from the packed package installed in an empty project, and type-checks against
 * its declarations (so every name it shows is exported). The cookbook's blocks have their own file.
 */
describe("the README's and docs' runnable examples, from the packed package", () => {
  const blocks = docBlocks(REPO).filter((b) => b.runs && b.file !== "docs/cookbook.md");

  it("are marked in the pages that show whole tests (the harness's worked example, the IAP flow)", () => {
    expect(blocks.map((b) => b.file)).toEqual(expect.arrayContaining(["docs/harness.md", "docs/dfu.md"]));
    for (const block of blocks) expect(block.lang, `${block.file}:${block.line}`).toBe("ts");
  });

  it("each runs and passes, and type-checks against the package's declarations", async () => {
    const files = Object.fromEntries(blocks.map((b) => [blockTestName(b), b.text]));
    const { tests, output } = await runInPackedProject("doc-examples", files);
    const failed = tests.filter((t) => t.status !== "passed");
    expect(
      failed.map((t) => `${t.file} > ${t.name}: ${t.failures.join("\n")}`),
      output,
    ).toEqual([]);
    expect(new Set(tests.map((t) => t.file)).size).toBe(blocks.length);
    await typeCheckInPackedProject("doc-examples");
  });
});
