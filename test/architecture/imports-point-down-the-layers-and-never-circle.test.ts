import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseCircular, parseDependencyTree } from "dpdm";
import { ESLint } from "eslint";
import { afterAll, describe, expect, it } from "vitest";

// DESIGN.md, Architecture: core <- protocol <- firmware <- hil <- boards <- runtime <- harness <-
// cli; the hub on core and protocol alone. `npm run lint` enforces both halves of this test on the
// whole repository; here each rule is shown failing on a deliberate violation.
const root = fileURLToPath(new URL("../..", import.meta.url));
const eslint = new ESLint({ cwd: root });

async function problems(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId?.startsWith("no-restricted")).map((m) => m.message);
}

describe("lint refuses an import against the order of the layers", () => {
  it.each([
    [
      "firmware/Example.ts",
      'import { TcpLink } from "../hil/links/TcpLink.js";',
      /firmware\/ may import only/,
    ],
    [
      "hub/Example.ts",
      'import { Module } from "../firmware/Module.js";',
      /hub\/ may import only core, protocol/,
    ],
    [
      "hub/api/Example.ts",
      'import { FakeClock } from "../../runtime/FakeClock.js";',
      /hub\/ may import only/,
    ],
    [
      "core/Example.ts",
      'import type { Notebox } from "../firmware/storage/Notebox.js";',
      /core\/ may import only/,
    ],
    [
      "protocol/Example.ts",
      'import { Module } from "../firmware/Module.js";',
      /protocol\/ may import only core/,
    ],
    ["hil/Example.ts", 'import { Scenario } from "../harness/Scenario.js";', /hil\/ may import only/],
    ["boards/Example.ts", 'import { FakeClock } from "../runtime/FakeClock.js";', /boards\/ may import only/],
    ["runtime/Example.ts", 'import { Scenario } from "../harness/Scenario.js";', /runtime\/ may import only/],
    ["harness/Example.ts", 'import { main } from "../cli/main.js";', /harness\/ may import only/],
  ])("%s: %s", async (file, code, message) => {
    const found = await problems(file, `${code}\nexport const used = [${/\{ (\w+) \}/.exec(code)![1]}];\n`);
    expect(
      found.some((m) => message.test(m)),
      found.join("\n"),
    ).toBe(true);
  });

  it("and lets the same imports through where they point down", async () => {
    expect(
      await problems(
        "cli/Example.ts",
        'import { Scenario } from "../harness/Scenario.js";\nexport { Scenario };\n',
      ),
    ).toEqual([]);
    expect(
      await problems(
        "firmware/Example.ts",
        'import { SYNC_TRACKER } from "../protocol/trackers.js";\nexport { SYNC_TRACKER };\n',
      ),
    ).toEqual([]);
  });

  it("keeps core, protocol and firmware platform-free", async () => {
    expect(
      await problems(
        "core/Example.ts",
        'import { readFile } from "node:fs/promises";\nexport { readFile };\n',
      ),
    ).not.toEqual([]);
    expect(
      await problems("protocol/Example.ts", "export const f = () => fetch('http://127.0.0.1/');\n"),
    ).not.toEqual([]);
    expect(await problems("firmware/Example.ts", "export const t = () => Date.now();\n")).not.toEqual([]);
    expect(
      await problems(
        "firmware/Example.ts",
        "export const r = () => crypto.getRandomValues(new Uint8Array(4));\n",
      ),
    ).not.toEqual([]);
  });
});

describe("the cycle check finds a circle of imports", () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("between two files that import each other, even by type only", async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-cycle-"));
    await writeFile(join(dir, "a.ts"), 'import type { B } from "./b.js";\nexport interface A { b?: B }\n');
    await writeFile(join(dir, "b.ts"), 'import type { A } from "./a.js";\nexport interface B { a?: A }\n');
    await writeFile(
      join(dir, "tsconfig.json"),
      JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext" } }),
    );
    await writeFile(join(dir, "c.ts"), 'import type { A } from "./a.js";\nexport type C = A;\n');
    const tree = await parseDependencyTree(join(dir, "*.ts"), {
      context: dir,
      tsconfig: join(dir, "tsconfig.json"),
    });
    const circles = parseCircular(tree);
    expect(circles).toHaveLength(1);
    expect(circles[0]!.map((f) => f.replace(/^.*\//, "")).sort()).toEqual(["a.ts", "b.ts"]);
  });
});
