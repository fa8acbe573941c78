import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedForEndpoints } from "./support/seedForEndpoints.js";
import { ENDPOINTS } from "./support/endpoints.js";
import { TestHub } from "./support/hubFixture.js";

/** A request must answer within this (fake-clock hub, in-process): anything slower is a hang. */
const HANG_MS = 5_000;

function withDeadline<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    work.finally(() => clearTimeout(timer)),
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`hung: ${what}`)), HANG_MS);
    }),
  ]);
}

const queryKeys = fc.constantFrom(
  "pageSize",
  "pageNum",
  "deviceUID",
  "tag",
  "serialNumber",
  "fleetUID",
  "notecardFirmware",
  "moduleFirmware",
  "location",
  "hostFirmware",
  "productUID",
  "sku",
  "startDate",
  "endDate",
  "log_type",
  "firstSync",
  "purge",
  "tracker",
  "max",
  "start",
  "stop",
  "deleted",
  "delete",
  "files",
  "pending",
  "sortBy",
  "sortOrder",
  "dateType",
  "systemFilesOnly",
  "format",
  "selectFields",
  "sessionUID",
  "eventUID",
  "deviceUIDs",
  "limit",
  "cursor",
  "period",
  "aggregate",
  "notefile",
  "includeNotefiles",
  "skipRecentData",
  "__proto__",
  "constructor",
  "a[b]",
);

/** Values that break naive parsers: numbers out of range, floats, unicode, percent signs, huge. */
const queryValues = fc.oneof(
  fc.string(),
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom(
    "",
    "-1",
    "0",
    "1e309",
    "NaN",
    "true",
    "%",
    "%zz",
    "%00",
    "sn:",
    "dev:",
    "_sync",
    "9".repeat(40),
    "csv",
    "desc",
    "best_location",
    "uploaded",
    "month",
    "fleet",
    "body.a,,b",
    "__proto__.x",
  ),
  fc.string({ unit: "binary", maxLength: 40 }),
);

const querystring = fc
  .array(fc.tuple(queryKeys, queryValues), { maxLength: 8 })
  .map((pairs) => pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&"));

const segment = fc.oneof(
  fc.string({ minLength: 1 }),
  fc.constantFrom(
    "dev:1",
    "sn:x",
    "sn:",
    "data.qi",
    "a.dbx",
    "x.qo",
    "_env.dbs",
    ".db",
    "-",
    "changes",
    "%2F",
    "%00",
  ),
  fc.string({ unit: "binary", minLength: 1, maxLength: 30 }),
);

describe("fuzzed query strings, paths and bodies never crash or hang the hub", () => {
  let hub: TestHub;
  let values: Record<string, string>;

  beforeAll(async () => {
    hub = await TestHub.start();
    values = await seedForEndpoints(hub);
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const fill = (path: string): string => path.replace(/\{([A-Z]+)\}/g, (_, k: string) => values[k] ?? k);

  it("answers every query string on every endpoint below 500", async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...ENDPOINTS), querystring, async (endpoint, qs) => {
        const path = fill(endpoint.path);
        const url = `${path}${path.includes("?") ? "&" : "?"}${qs}`;
        const res = await withDeadline(hub.request(endpoint.method, url, { as: "owner" }), url);
        expect(res.status, `${endpoint.method} ${url}: ${res.text}`).toBeLessThan(500);
      }),
      { numRuns: 400, seed: 4 },
    );
  });

  it("answers every body (JSON of any shape, garbage, wrong content types) below 500", async () => {
    const writes = ENDPOINTS.filter((e) => e.method !== "GET");
    const bodies = fc.oneof(
      fc.jsonValue().map((v) => ({ payload: JSON.stringify(v), contentType: "application/json" })),
      fc.record({
        payload: fc.string({ unit: "binary" }),
        contentType: fc.constantFrom(
          "application/json",
          "text/plain",
          "application/x-www-form-urlencoded",
          "x/y",
        ),
      }),
      fc
        .dictionary(
          fc.constantFrom(
            "body",
            "payload",
            "environment_variables",
            "fleet_uids",
            "files",
            "label",
            "product_uid",
          ),
          fc.jsonValue(),
        )
        .map((v) => ({ payload: JSON.stringify(v), contentType: "application/json" })),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writes), bodies, async (endpoint, body) => {
        const url = fill(endpoint.path);
        const res = await withDeadline(
          hub.request(endpoint.method, url, {
            as: "owner",
            payload: body.payload,
            contentType: body.contentType,
          }),
          url,
        );
        expect(
          res.status,
          `${endpoint.method} ${url} ${body.payload.slice(0, 80)}: ${res.text}`,
        ).toBeLessThan(500);
      }),
      { numRuns: 400, seed: 5 },
    );
  });

  it("answers arbitrary path segments (device, notefile, note IDs) below 500", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...ENDPOINTS.filter((e) => e.path.includes("{D}"))),
        segment,
        segment,
        async (endpoint, device, file) => {
          const url = fill(endpoint.path)
            .replace(values.D!, encodeURIComponent(device))
            .replace(/(notes|notefiles)\/[^/]+/, `$1/${encodeURIComponent(file)}`);
          const res = await withDeadline(
            hub.request(endpoint.method, url, { as: "owner", body: endpoint.body ?? undefined }),
            url,
          );
          expect(res.status, `${endpoint.method} ${url}: ${res.text}`).toBeLessThan(500);
        },
      ),
      { numRuns: 300, seed: 6 },
    );
  });

  it("answers the token endpoint's fuzzed forms with RFC 6749 errors, never a 500", async () => {
    const form = fc
      .array(
        fc.tuple(fc.constantFrom("grant_type", "client_id", "client_secret", "scope", "x"), queryValues),
        { maxLength: 6 },
      )
      .map((pairs) => pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&"));
    await fc.assert(
      fc.asyncProperty(
        form,
        fc.constantFrom("application/x-www-form-urlencoded", "application/json", "text/plain"),
        async (payload, contentType) => {
          const res = await withDeadline(
            hub.request("POST", "/oauth2/token", { as: null, payload, contentType }),
            payload,
          );
          expect(res.status).toBeGreaterThanOrEqual(400);
          expect(res.status).toBeLessThan(500);
          expect(typeof res.json.error).toBe("string");
        },
      ),
      { numRuns: 300, seed: 7 },
    );
  });
});
