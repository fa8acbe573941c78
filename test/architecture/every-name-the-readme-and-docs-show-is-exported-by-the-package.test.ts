import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { REPO } from "../../tools/packedPackage.js";
import { docBlocks, type DocBlock } from "../support/docBlocks.js";

/**
 * Issue 24, point 3: a name the README or docs/ show in TypeScript or JavaScript is one a user can
 * import: from `cardsim` or `cardsim/harness` (no deep imports into the package, which its exports
 * map refuses), declared in the block, or a global. Blocks marked `<!-- test -->` are checked
 * harder by test/package (they run and type-check from the packed tarball).
 */

/**
 * The names (values and types) the package's two entries export. The entries name every export
 * (`export { X } from`, never `export *`: checked here), so the program holds the two entries
 * alone: the checker lists re-exported names without reading the files they come from (reading
 * the whole package and its libraries took seconds of every fast run).
 */
function packageExports(): Map<string, Set<string>> {
  const entries = { cardsim: "runtime/index.ts", "cardsim/harness": "harness/index.ts" };
  const files = new Set(Object.values(entries).map((f) => join(REPO, f)));
  const options: ts.CompilerOptions = {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    noLib: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const read = host.getSourceFile.bind(host);
  host.getSourceFile = (file, ...rest) => (files.has(file) ? read(file, ...rest) : undefined);
  const exists = host.fileExists.bind(host);
  host.fileExists = (file) => files.has(file) && exists(file);
  const program = ts.createProgram([...files], options, host);
  for (const file of files) {
    expect(program.getSourceFile(file)!.text, `${file} re-exports with export *`).not.toMatch(/^export \*/m);
  }
  const checker = program.getTypeChecker();
  const out = new Map<string, Set<string>>();
  for (const [name, file] of Object.entries(entries)) {
    const source = program.getSourceFile(join(REPO, file))!;
    const symbol = checker.getSymbolAtLocation(source)!;
    out.set(name, new Set(checker.getExportsOfModule(symbol).map((s) => s.getName())));
  }
  return out;
}

/** Names a block imports, from where. */
function imports(block: DocBlock): { name: string; from: string }[] {
  const out: { name: string; from: string }[] = [];
  for (const m of block.text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+"([^"]+)"/g)) {
    for (const part of m[1]!.split(",")) {
      const name = part
        .trim()
        .replace(/^type\s+/, "")
        .split(/\s+as\s+/)[0]!
        .trim();
      if (name) out.push({ name, from: m[2]! });
    }
  }
  return out;
}

const GLOBALS = new Set([
  ...Object.getOwnPropertyNames(globalThis),
  "expect",
  "it",
  "describe",
  "beforeAll",
  "afterAll",
  "beforeEach",
  "afterEach",
  "vi",
  "process",
  "Buffer",
  "console",
  "require",
  "undefined",
]);

/**
 * Names a block uses as API (called, constructed, or capitalised) that it neither declares nor
 * imports: lower-case values it only reads are placeholders of the example (`clock`, `options`).
 */
function freeApiNames(block: DocBlock): string[] {
  const source = ts.createSourceFile("block.ts", block.text, ts.ScriptTarget.ES2022, true);
  const declared = new Set<string>();
  const used: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isVariableDeclaration(node) ||
        ts.isFunctionDeclaration(node) ||
        ts.isClassDeclaration(node) ||
        ts.isParameter(node) ||
        ts.isImportSpecifier(node) ||
        ts.isBindingElement(node)) &&
      node.name &&
      ts.isIdentifier(node.name)
    )
      declared.add(node.name.text);
    if (ts.isImportClause(node) && node.name) declared.add(node.name.text);
    if (ts.isIdentifier(node)) {
      const parent = node.parent;
      const member = ts.isPropertyAccessExpression(parent) && parent.name === node;
      const key =
        (ts.isPropertyAssignment(parent) && parent.name === node) ||
        (ts.isLabeledStatement(parent) && parent.label === node);
      const called =
        (ts.isCallExpression(parent) || ts.isNewExpression(parent)) && parent.expression === node;
      if (!member && !key && (called || /^[A-Z]/.test(node.text))) used.push(node.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return [...new Set(used)].filter((n) => !declared.has(n) && !GLOBALS.has(n));
}

describe("the names the README and docs/ show", () => {
  const exported = packageExports();
  const blocks = docBlocks(REPO).filter((b) => ["ts", "js"].includes(b.lang));
  const all = new Set([...exported.values()].flatMap((s) => [...s]));

  it("finds the package's entries and the docs' blocks", () => {
    expect(exported.get("cardsim")).toContain("startLocal");
    expect(exported.get("cardsim/harness")).toContain("Scenario");
    expect(blocks.length).toBeGreaterThan(10);
  });

  it.each(blocks.map((b) => [`${b.file}:${b.line}`, b] as const))(
    "%s imports only what the package exports",
    (_, block) => {
      for (const { name, from } of imports(block)) {
        expect(from, `${name}: a deep import, which the package's exports refuse`).not.toMatch(
          /^\.|^cardsim\/(?!harness$)/,
        );
        if (exported.has(from)) expect(exported.get(from), `${name} from ${from}`).toContain(name);
      }
    },
  );

  it.each(blocks.filter((b) => !b.runs).map((b) => [`${b.file}:${b.line}`, b] as const))(
    "%s uses no API name the package does not export",
    (_, block) => {
      expect(freeApiNames(block).filter((n) => !all.has(n))).toEqual([]);
    },
  );
});
