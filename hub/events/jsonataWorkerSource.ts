/**
 * The program of a JSONata worker process (JsonataCache), as text run with `node -e`, so that the
 * same source serves the TypeScript sources (tsx, vitest) and the built dist/ alike, with no loader
 * and no file to copy. Plain CommonJS JavaScript: `require` loads the jsonata package from the path
 * the hub resolved (the first argument; the second is how many compiled expressions to keep). It
 * talks over the IPC channel and ends when the hub goes away (the channel closes).
 *
 * Messages in: `{ id, source, input, ms, timeoutMs, stack, maxResultChars }`. Out: `{ ready: true }`
 * once loaded, then per job `{ id, json, doNotRoute }` (json: the value's JSON text, undefined when
 * the expression produced no value) or `{ id, error: { message, code, position, limit } }`.
 * Compiled expressions are kept per worker (at most `maxCached`, then the cache starts afresh).
 */
export const JSONATA_WORKER_SOURCE = String.raw`
"use strict";
const jsonata = require(process.argv[1]);
const maxCached = Number(process.argv[2]);
const parentPort = { postMessage: (message) => process.send(message), on: (name, f) => process.on(name, f) };
process.on("disconnect", () => process.exit(0));
const compiled = new Map();
const fromMillis = jsonata("$fromMillis($ms, $picture, $zone)");

function expression(source, timeoutMs, stack) {
  let expr = compiled.get(source);
  if (expr === undefined) {
    try {
      expr = jsonata(source, { timeout: timeoutMs, stack });
    } catch (error) {
      expr = { failed: error };
    }
    if (compiled.size >= maxCached) compiled.clear();
    compiled.set(source, expr);
  }
  if (expr.failed !== undefined) throw expr.failed;
  return expr;
}

function errorOf(error) {
  const e = error === null || typeof error !== "object" ? { message: String(error) } : error;
  return {
    message: typeof e.message === "string" ? e.message : String(error),
    code: typeof e.code === "string" ? e.code : undefined,
    position: typeof e.position === "number" ? e.position : undefined,
    // A string or array past the engine's size limits, or a stack overflow: a limit reached.
    limit: e.limit === true || error instanceof RangeError,
  };
}

parentPort.on("message", async (job) => {
  const { id, source, input, ms, timeoutMs, stack, maxResultChars } = job;
  try {
    const expr = expression(source, timeoutMs, stack);
    let doNotRoute = false;
    const value = await expr.evaluate(input, {
      doNotRoute: () => {
        doNotRoute = true;
        return undefined;
      },
      millis: () => ms,
      now: (picture, zone) => fromMillis.evaluate({}, { ms, picture, zone }),
    });
    const tooLarge = { message: "the JSONata result is larger than " + maxResultChars + " characters", limit: true };
    if (typeof value === "string" && value.length > maxResultChars) throw tooLarge;
    const json = value === undefined ? undefined : JSON.stringify(value);
    if (json !== undefined && json.length > maxResultChars) throw tooLarge;
    parentPort.postMessage({ id, json, doNotRoute });
  } catch (error) {
    parentPort.postMessage({ id, error: errorOf(error) });
  }
});
parentPort.postMessage({ ready: true });
`;
