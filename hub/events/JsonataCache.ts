import jsonata from "jsonata";

/** Longest a JSONata expression may run (ms of real time) and how deep it may recurse. */
export const JSONATA_TIMEOUT_MS = 1000;
export const JSONATA_STACK = 500;
const MAX_CACHED = 200;

/**
 * Compiled JSONata expressions by source text (a route's or a smart fleet's expression is
 * compiled once). `$now()` and `$millis()` read the hub's clock (`now`, epoch ms), not the
 * machine's, so that a fake clock shapes what the expressions see as it shapes everything else;
 * `$now` keeps its picture and time zone arguments.
 */
export class JsonataCache {
  readonly #compiled = new Map<string, jsonata.Expression | Error>();
  readonly #now: () => number;
  readonly #fromMillis = jsonata("$fromMillis($ms, $picture, $zone)");

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #expression(source: string): jsonata.Expression {
    let expr = this.#compiled.get(source);
    if (expr === undefined) {
      try {
        expr = jsonata(source, { timeout: JSONATA_TIMEOUT_MS, stack: JSONATA_STACK });
      } catch (error) {
        expr = new Error(describe(error));
      }
      if (this.#compiled.size >= MAX_CACHED) this.#compiled.clear();
      this.#compiled.set(source, expr);
    }
    if (expr instanceof Error) throw expr;
    return expr;
  }

  /**
   * Evaluates `source` over `input`. `$doNotRoute()` marks the input as not to be routed; any
   * error (syntax, evaluation, time or depth limit) is thrown with the library's message.
   */
  async evaluate(source: string, input: unknown): Promise<{ value: unknown; doNotRoute: boolean }> {
    const expr = this.#expression(source);
    let doNotRoute = false;
    // One instant per evaluation, as the library's own `$now()` has.
    const ms = this.#now();
    try {
      const value: unknown = await expr.evaluate(input, {
        doNotRoute: () => {
          doNotRoute = true;
          return undefined;
        },
        millis: () => ms,
        now: (picture?: string, zone?: string) =>
          this.#fromMillis.evaluate({}, { ms, picture, zone }) as Promise<string>,
      });
      return { value, doNotRoute };
    } catch (error) {
      throw new Error(describe(error), { cause: error });
    }
  }
}

/** A JSONata error (a plain object with code and position, or an Error) in one line. */
function describe(error: unknown): string {
  const e = error as { message?: string; code?: string; position?: number; value?: unknown };
  const code = e.code ? ` (${e.code}${e.position !== undefined ? ` at ${e.position}` : ""})` : "";
  switch (e.code) {
    case "D1012":
      return `JSONata expression ran longer than ${JSONATA_TIMEOUT_MS} ms`;
    case "D1011":
      return `JSONata expression recursed deeper than ${JSONATA_STACK} levels`;
  }
  return `JSONata error: ${e.message ?? String(error)}${code}`;
}
