/** One place where two line sequences differ. */
export interface LineDifference {
  readonly index: number;
  readonly expected: string | undefined;
  readonly actual: string | undefined;
}

/** Splits a byte stream's text into lines at `\n` (a last line without newline is kept). */
export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Line-by-line differences (position by position: a replay must match exactly). */
export function lineDifferences(expected: readonly string[], actual: readonly string[]): LineDifference[] {
  const out: LineDifference[] = [];
  for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
    if (expected[i] !== actual[i]) out.push({ index: i, expected: expected[i], actual: actual[i] });
  }
  return out;
}

/** A readable report of the first differences. */
export function describeDifferences(differences: readonly LineDifference[], max = 5): string {
  const show = (s: string | undefined) => (s === undefined ? "(nothing)" : JSON.stringify(s));
  return differences
    .slice(0, max)
    .map((d) => `line ${d.index + 1}: expected ${show(d.expected)}, got ${show(d.actual)}`)
    .concat(differences.length > max ? [`... and ${differences.length - max} more`] : [])
    .join("\n");
}
