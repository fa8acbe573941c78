import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { JsonataCache, JsonataError } from "../../../hub/events/JsonataCache.js";

let cache: JsonataCache | undefined;
afterEach(async () => {
  await cache?.close();
  cache = undefined;
});

const failure = async (work: Promise<unknown>): Promise<JsonataError> => {
  const [settled] = await Promise.allSettled([work]);
  expect(settled!.status).toBe("rejected");
  const reason = (settled as PromiseRejectedResult).reason as unknown;
  expect(reason).toBeInstanceOf(JsonataError);
  return reason as JsonataError;
};

/**
 * The hub's JSONata evaluator runs every expression in a worker process: one that runs past its
 * deadline (a backtracking regular expression: one built-in call the library's own timeout never
 * interrupts), fills the worker's heap or makes a result too large fails with a JsonataError
 * marked `limit`; its worker is replaced and the next evaluation goes on as usual. `$now()` and
 * `$millis()` read the hub's clock, `$doNotRoute()` is reported. Idle workers never keep the
 * process alive; `close()` ends them.
 */
describe("the JSONata evaluator", () => {
  it("evaluates with the hub's clock, reports $doNotRoute() and keeps the library's own errors as they were", async () => {
    cache = new JsonataCache(() => Date.UTC(2026, 5, 1, 12), { workers: 1 });
    expect(
      await cache.evaluate('{"ms": $millis(), "at": $now(), "local": $now("[H01]", "+0200"), "t": body.t}', {
        body: { t: 3 },
      }),
    ).toEqual({
      value: { ms: Date.UTC(2026, 5, 1, 12), at: "2026-06-01T12:00:00.000Z", local: "14", t: 3 },
      json: JSON.stringify({
        ms: Date.UTC(2026, 5, 1, 12),
        at: "2026-06-01T12:00:00.000Z",
        local: "14",
        t: 3,
      }),
      doNotRoute: false,
    });
    expect(await cache.evaluate("$doNotRoute()", {})).toEqual({
      value: undefined,
      json: undefined,
      doNotRoute: true,
    });
    expect(await cache.evaluate('"t=" & $string(t)', { t: 1 })).toMatchObject({
      value: "t=1",
      doNotRoute: false,
    });
    const syntax = await failure(cache.evaluate('{"a": 1', {}));
    expect(syntax.limit).toBe(false);
    expect(syntax.message).toMatch(/^JSONata error: .*\(S0203 at \d+\)$/);
    const thrown = await failure(cache.evaluate('$error("no")', {}));
    expect(thrown).toMatchObject({ limit: false, message: expect.stringMatching(/^JSONata error: no/) });
    expect(cache.workers).toBe(1);
  });

  it("stops a regular expression backtracking past the deadline, and replaces its worker", async () => {
    cache = new JsonataCache(Date.now, { workers: 1 });
    const error = await failure(cache.evaluate("$match(s, /(a+)+$/)", { s: `${"a".repeat(28)}!` }));
    expect(error.limit).toBe(true);
    expect(error.message).toBe(
      "JSONata expression ran longer than 1000 ms: it was stopped (its worker was killed)",
    );
    expect(await cache.evaluate("s", { s: "next" })).toMatchObject({ value: "next" });
    expect(cache.workers).toBe(1);
  });

  it("stops an expression that fills the worker's heap", async () => {
    // A deadline far off: the heap limit is what stops it.
    cache = new JsonataCache(Date.now, { workers: 1, memoryMb: 64, timeoutMs: 60_000 });
    const error = await failure(cache.evaluate('$length($pad("x", 100000000))', {}));
    expect(error.limit).toBe(true);
    expect(error.message).toBe("JSONata expression used more than 64 MB of memory: it was stopped");
    expect(await cache.evaluate("1 + 1", {})).toMatchObject({ value: 2 });
  });

  it("refuses a result larger than 8 MiB (a $pad the hub's own thread died of)", async () => {
    cache = new JsonataCache(Date.now, { workers: 1 });
    const error = await failure(cache.evaluate('$pad("x", 500000000)', {}));
    expect(error).toMatchObject({
      limit: true,
      message: "JSONata expression reached a limit: the JSONata result is larger than 8388608 characters",
    });
    expect(await cache.evaluate("[1, 2]", {})).toMatchObject({ value: [1, 2], json: "[1,2]" });
  });

  it("evaluates side by side up to its workers, and fails what is queued or under way when closed", async () => {
    cache = new JsonataCache(Date.now, { workers: 2 });
    const slow = failure(cache.evaluate("$match(s, /(a+)+$/)", { s: `${"a".repeat(28)}!` }));
    // The second worker answers while the first is busy.
    expect(await cache.evaluate("n * 2", { n: 21 })).toMatchObject({ value: 42 });
    expect(cache.workers).toBe(2);
    await cache.close();
    expect(await slow).toMatchObject({ limit: false, message: expect.stringMatching(/closed/) });
    expect(await failure(cache.evaluate("1", {}))).toMatchObject({
      message: "the JSONata evaluator is closed",
    });
    expect(cache.workers).toBe(0);
  });

  it("never keeps a process alive: one that evaluates and never closes the evaluator exits", async () => {
    const module = fileURLToPath(new URL("../../../hub/events/JsonataCache.ts", import.meta.url));
    const script = `
      const { JsonataCache } = await import(${JSON.stringify(module)});
      const cache = new JsonataCache();
      const { value } = await cache.evaluate("a + 1", { a: 1 });
      console.log(value, cache.workers);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString("utf8")));
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(err).toBe("");
    expect(out.trim()).toBe("2 1");
    expect(code).toBe(0);
  }, 30_000);
});
