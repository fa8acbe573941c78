import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTE_SCHEMAS, ROUTE_TYPES } from "../../../hub/routing/routeSettings.js";
import { TestHub } from "../support/hubFixture.js";

/** Any JSON value, with the route fields' names as keys more often than not. */
const names = fc.constantFrom(
  ...new Set([
    ...Object.keys(ROUTE_SCHEMAS),
    ...Object.values(ROUTE_SCHEMAS).flatMap((fields) => Object.keys(fields)),
    "type",
    "route_type",
    "schema",
    "label",
    "disabled",
    "notes",
    "format",
    "jsonata",
    "files",
    "system_notefiles",
    "__proto__",
    "constructor",
  ]),
);
const leaf = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(
    ...Object.keys(ROUTE_TYPES),
    "https://example.com/x",
    "include",
    "jsonata",
    "$doNotRoute()",
    "{",
  ),
);
const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  node: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("node"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(names, fc.string()), tie("node"), { maxKeys: 5 }),
  ),
})).node;
const body = fc.dictionary(fc.oneof(names, fc.string()), value, { maxKeys: 6 });

const queryKeys = fc.constantFrom(
  "pageSize",
  "pageNum",
  "deviceUID",
  "sortBy",
  "sortOrder",
  "startDate",
  "endDate",
  "systemFilesOnly",
  "mostRecentOnly",
  "files",
  "routingStatus",
  "responseStatus",
  "period",
  "aggregate",
  "routeUID",
  "limit",
  "skipRecentData",
);
const queryValue = fc.oneof(
  fc.string(),
  fc.integer().map(String),
  fc.constantFrom("", "-1", "0", "1e309", "true", "date", "event", "asc", "day", "route", "success", "%zz"),
);
const query = fc
  .array(fc.tuple(queryKeys, queryValue), { maxLength: 6 })
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&"));

/** Whatever a route body or query holds, the answer is a success or a 4xx with the error body. */
describe("fuzzed route bodies and queries", () => {
  let hub: TestHub;
  let existing: string;

  beforeAll(async () => {
    hub = await TestHub.start();
    existing = (await hub.post(hub.p("/routes"), { type: "http", http: { url: "https://example.com/in" } }))
      .json.uid;
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const acceptable = (status: number, json: { err?: unknown } | undefined): boolean =>
    (status >= 200 && status < 300) || (status >= 400 && status < 500 && typeof json?.err === "string");

  it("creates and updates routes from any body without a fault", async () => {
    await fc.assert(
      fc.asyncProperty(body, fc.boolean(), async (b, update) => {
        const res = update
          ? await hub.put(hub.p(`/routes/${existing}`), b)
          : await hub.post(hub.p("/routes"), b);
        expect(acceptable(res.status, res.json), `${res.status} ${res.text}`).toBe(true);
      }),
      { numRuns: 300 },
    );
    // The route still reads back as a route.
    expect((await hub.get(hub.p(`/routes/${existing}`))).status).toBe(200);
  });

  it("reads logs and usage with any query without a fault", async () => {
    await fc.assert(
      fc.asyncProperty(query, fc.boolean(), async (q, usage) => {
        const res = await hub.get(
          hub.p(usage ? `/usage/route-logs?${q}` : `/routes/${existing}/route-logs?${q}`),
        );
        expect(acceptable(res.status, res.json), `${res.status} ${res.text}`).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
