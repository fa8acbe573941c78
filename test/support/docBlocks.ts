import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

/** A fenced code block of the README or a page of docs/. */
export interface DocBlock {
  /** Relative to the repository (`docs/cookbook.md`). */
  readonly file: string;
  /** Line of its opening fence (1-based). */
  readonly line: number;
  readonly lang: string;
  readonly text: string;
  /** Marked `<!-- test -->` on the line above its fence: a whole test file that must run. */
  readonly runs: boolean;
}

/** The README and every Markdown page under docs/, in a stable order. */
export function docFiles(repo: string): string[] {
  const pages: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name.endsWith(".md")) pages.push(join(dir, entry.name));
    }
  };
  walk(join(repo, "docs"));
  return [join(repo, "README.md"), ...pages.sort()];
}

/** Every fenced block of the README and docs/ (docs/harness.md, "Examples that run"). */
export function docBlocks(repo: string): DocBlock[] {
  const blocks: DocBlock[] = [];
  for (const path of docFiles(repo)) {
    const lines = readFileSync(path, "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      const open = /^```(\w*)\s*$/.exec(lines[i]!);
      if (!open) continue;
      const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
      if (end < 0) break;
      let above = i - 1;
      while (above >= 0 && lines[above]!.trim() === "") above--;
      blocks.push({
        file: relative(repo, path),
        line: i + 1,
        lang: open[1]!,
        text: lines.slice(i + 1, end).join("\n") + "\n",
        runs: above >= 0 && lines[above]!.trim() === "<!-- test -->",
      });
      i = end;
    }
  }
  return blocks;
}

/** A file name for a block run as a test: `docs-cookbook-md-42.test.ts`. */
export function blockTestName(block: DocBlock): string {
  return `${block.file.replace(/[^A-Za-z0-9]+/g, "-")}-${block.line}.test.ts`;
}
