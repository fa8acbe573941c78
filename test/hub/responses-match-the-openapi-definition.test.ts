import { describe, expect, it } from "vitest";
import { CONTRACT_SKIP_MESSAGE, OpenApiContract } from "./support/OpenApiContract.js";

/**
 * Every response the hub tests receive through the test hub is checked against the OpenAPI
 * definitions in ../shared (hubFixture.ts; each test file asserts no violations). This file checks
 * the checker: it must find operations, accept good shapes and reject bad ones.
 */
const contract = OpenApiContract.load();
if (!contract) console.warn(CONTRACT_SKIP_MESSAGE);

describe.skipIf(!contract)("the OpenAPI contract check", () => {
  const c = contract!;

  it("matches concrete paths to operations, literal segments first, older-client-only operations too", () => {
    expect(c.find("GET", "/v1/projects/app:1/devices/public-keys")?.op.operationId).toBe(
      "GetDevicePublicKeys",
    );
    expect(c.find("GET", "/v1/projects/app:1/devices/dev:1")?.op.operationId).toBe("GetDevice");
    expect(c.find("GET", "/v1/projects/app:1/devices/dev:1/files/changes")?.spec).toBe("client");
    expect(c.find("GET", "/v1/nothing")).toBeUndefined();
  });

  it("accepts a conforming body and rejects a wrong one", () => {
    const good = JSON.stringify({ devices: [], has_more: false });
    expect(c.check("GET", "/v1/projects/app:1/devices", 200, "application/json", good).problems).toEqual([]);
    const missing = c.check(
      "GET",
      "/v1/projects/app:1/devices",
      200,
      "application/json",
      JSON.stringify({ devices: [] }),
    );
    expect(missing.problems.join()).toMatch(/has_more/);
    const badDevice = JSON.stringify({ devices: [{ uid: "dev:1" }], has_more: false });
    expect(
      c.check("GET", "/v1/projects/app:1/devices", 200, "application/json", badDevice).problems,
    ).not.toEqual([]);
    const badError = c.check(
      "GET",
      "/v1/projects/app:1",
      404,
      "application/json",
      JSON.stringify({ message: "x" }),
    );
    expect(badError.problems.join()).toMatch(/err/);
    expect(c.check("GET", "/v1/projects/app:1", 202, "application/json", "{}").problems.join()).toMatch(
      /not declared/,
    );
  });

  it("accepts a response in another media type the operation declares (events as CSV), and only that", () => {
    const csv = "eventUID,deviceUID\ne1,dev:1\n";
    expect(c.check("GET", "/v1/projects/app:1/events", 200, "text/csv; charset=utf-8", csv).problems).toEqual(
      [],
    );
    expect(c.check("GET", "/v1/projects/app:1/events", 200, "text/html", csv).problems.join()).toMatch(
      /should be JSON/,
    );
    expect(c.check("GET", "/v1/projects/app:1/devices", 200, "text/csv", csv).problems.join()).toMatch(
      /should be JSON/,
    );
  });

  it("reads a oneOf whose branches all accept any object as anyOf (a monitor's alert routes), and only such a oneOf", () => {
    const monitor = (routes: unknown[]) => JSON.stringify([{ uid: "monitor:1", alert_routes: routes }]);
    const routes = [{ email: "ops@example.com" }, { url: "http://127.0.0.1:9/hook", message_type: "text" }];
    expect(
      c.check("GET", "/v1/projects/app:1/monitors", 200, "application/json", monitor(routes)).problems,
    ).toEqual([]);
    const wrong = monitor(["ops@example.com"]); // a target must be an object
    expect(
      c.check("GET", "/v1/projects/app:1/monitors", 200, "application/json", wrong).problems,
    ).not.toEqual([]);
  });

  it("finds the webhook, secret, journey and schema operations and holds their answers to the definition", () => {
    expect(c.find("GET", "/v1/projects/app:1/secrets")?.op.operationId).toBe("GetProjectSecrets");
    expect(c.find("POST", "/v1/products/product:x/webhooks/w/devices/dev:1/event")?.op.operationId).toBe(
      "CreateWebhookDeviceEventByProduct",
    );
    // A secret's record without its creator, and one carrying its value, are not what the definition allows.
    const noCreator = JSON.stringify({ secrets: [{ name: "K", created: "2026-01-01T00:00:00Z" }] });
    expect(
      c.check("GET", "/v1/projects/app:1/secrets", 200, "application/json", noCreator).problems,
    ).not.toEqual([]);
    const journeys = JSON.stringify({ journeys: [{ journey_id: 1, total_events: 1 }], has_more: false });
    expect(
      c
        .check("GET", "/v1/projects/app:1/devices/dev:1/journeys", 200, "application/json", journeys)
        .problems.join(),
    ).toMatch(/start_date/);
    const schema = JSON.stringify([{ notefile: "a.qo", properties: [{ name: "x", type: "number" }] }]);
    expect(
      c.check("GET", "/v1/projects/app:1/schemas", 200, "application/json", schema).problems.join(),
    ).toMatch(/updatedAt/);
  });
});
