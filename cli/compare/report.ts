import type { Exchange } from "./run.js";
import { describeDifference } from "./shape.js";

/** The lines printed for one exchange that differs (none when both sides answered alike). */
export function exchangeLines(exchange: Exchange, line?: number): string[] {
  if (exchange.differences.length === 0 && !exchange.realError && !exchange.simError) return [];
  const where = line !== undefined ? ` (line ${line})` : "";
  const lines = [`#${exchange.index}${where} ${JSON.stringify(exchange.request)}`];
  if (exchange.realError) lines.push(`  real module: ${exchange.realError}`);
  if (exchange.simError) lines.push(`  simulated module: ${exchange.simError}`);
  for (const d of exchange.differences) lines.push(`  ${describeDifference(d)}`);
  return lines;
}

/** Whether an exchange counts as a difference. */
export function differs(exchange: Exchange): boolean {
  return (
    exchange.differences.length > 0 || exchange.realError !== undefined || exchange.simError !== undefined
  );
}

/** The last line: how many requests, how many differ. */
export function summaryLine(exchanges: readonly Exchange[]): string {
  const differing = exchanges.filter(differs).length;
  const n = exchanges.length;
  const requests = `${n} request${n === 1 ? "" : "s"}`;
  if (differing === 0) return `${requests}: the replies have the same shape`;
  return `${requests}: ${n - differing} the same, ${differing} differ${differing === 1 ? "s" : ""}`;
}

/** The machine-readable report (`--json`). */
export function jsonReport(sku: string, exchanges: readonly Exchange[]) {
  const differing = exchanges.filter(differs);
  return {
    sku,
    requests: exchanges.length,
    differ: differing.length,
    exchanges: differing.map((e) => ({
      index: e.index,
      request: e.request,
      ...(e.realError ? { realError: e.realError } : {}),
      ...(e.simError ? { simError: e.simError } : {}),
      differences: e.differences,
    })),
  };
}
