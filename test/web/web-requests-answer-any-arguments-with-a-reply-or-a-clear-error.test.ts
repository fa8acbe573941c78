import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { md5Hex } from "../../core/md5.js";
import type { JsonObject } from "../../core/json.js";
import type { MemoryLog } from "../../firmware/ModuleLog.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { HttpEndpoint } from "../hub/routes/support/servers.js";
import { SyncWorld } from "../sync/support/syncWorld.js";
import { base64, echoJson, pattern, putBinary } from "./support/webHost.js";

const REQUESTS = ["web", "web.get", "web.post", "web.put", "web.delete"];
const FIELDS = [
  "route",
  "method",
  "name",
  "content",
  "body",
  "payload",
  "binary",
  "offset",
  "total",
  "status",
  "verify",
  "max",
  "seconds",
  "async",
  "file",
  "note",
];

/** A value for a field: plausible ones most of the time, anything JSON now and then. */
const value = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom("api", "api", "other", "", "GET", "post", "PUT", "DELETE", "CONNECT"),
  },
  {
    weight: 3,
    arbitrary: fc.constantFrom("/json", "/big", "/bytes", "/empty", "?q=1", "a b", "\u0000", "x\ny"),
  },
  { weight: 2, arbitrary: fc.constantFrom("out.dbx", "out.db", "x.qo", "bad,name.dbx", "n1", "?") },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      base64(pattern(40)),
      base64(pattern(9000)),
      "!!",
      "AA",
      md5Hex(pattern(40)),
      "0".repeat(32),
      "application/octet-stream",
      "text/plain\r\nX: y",
    ),
  },
  { weight: 4, arbitrary: fc.integer({ min: -3, max: 12_000_000 }) },
  { weight: 2, arbitrary: fc.constantFrom(0, 1, 40, 100, 8192, 8193, -1, 1.5, 1e12) },
  { weight: 3, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constant({ temp: 21.5 }) },
);

/**
 * Whatever a host sends to web.* (every argument, of every JSON type, in any combination), a
 * module that is online answers either the endpoint's result or an error the module means to
 * send: never an internal error, never a thrown request, nothing logged as a failure.
 */
describe("web.* with arguments of every kind", () => {
  let world: SyncWorld;
  let endpoint: HttpEndpoint;
  let sim: SimulatedModule;

  beforeAll(async () => {
    world = await SyncWorld.start("in-process");
    endpoint = await HttpEndpoint.start();
    endpoint.handler = (req, res) => {
      const path = req.url.split("?")[0];
      if (path === "/big") res.end(Buffer.from(pattern(9000)));
      else if (path === "/bytes") res.end(Buffer.from(pattern(300)));
      else if (path === "/empty") {
        res.statusCode = 204;
        res.end();
      } else echoJson(req, res);
    };
    await world.proxyRoute("api", endpoint.url);
    sim = await world.module();
    await world.online(sim);
  });
  afterAll(async () => {
    await world.close();
    await endpoint.close();
  });

  it("answers a result or a clear error, never an internal one", async () => {
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...REQUESTS),
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD"),
        fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }),
        fc.boolean(),
        async (req, method, args, filled) => {
          if (filled) await putBinary(sim, pattern(500));
          else await world.req(sim, { req: "card.binary", delete: true });
          // A route and a method unless the arguments drawn say otherwise.
          const request = { route: "api", ...(req === "web" ? { method } : {}), ...args, req } as JsonObject;
          const reply = (await sim.module.request(request))!;
          await sim.module.web.idle();
          expect(reply).toBeTypeOf("object");
          if (typeof reply["err"] === "string") {
            expect(reply["err"]).not.toMatch(/internal error/);
          } else if (Object.keys(reply).length > 0) {
            // Anything but an asynchronous request's `{}` carries the endpoint's status.
            expect(Number.isInteger(reply["result"])).toBe(true);
            answered++;
          }
        },
      ),
      { numRuns: 300 },
    );
    expect(answered).toBeGreaterThan(50);
    expect((sim.log as MemoryLog).lines.filter((l) => l.level === "error")).toEqual([]);
    // The module is still online and well.
    expect(await world.req(sim, { req: "web.get", route: "api", name: "/json" })).toMatchObject({
      result: 200,
    });
  });
});

describe("web.* on a module that is offline", () => {
  it("answers the offline error or an argument error for any arguments, and sends nothing", async () => {
    const world = await SyncWorld.start("in-process");
    const endpoint = await HttpEndpoint.start();
    try {
      await world.proxyRoute("api", endpoint.url);
      const sim = await world.module();
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom(...REQUESTS),
          fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 }),
          async (req, args) => {
            const reply = (await sim.module.request({ ...args, req } as JsonObject))!;
            expect(typeof reply["err"]).toBe("string");
            expect(reply["err"]).not.toMatch(/internal error/);
          },
        ),
        { numRuns: 300 },
      );
      expect(endpoint.received).toHaveLength(0);
    } finally {
      await world.close();
      await endpoint.close();
    }
  });
});
