import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTE_TYPES, SECRET_PLACEHOLDER } from "../../../hub/routing/routeSettings.js";
import { expectErrorBody, TestHub } from "../support/hubFixture.js";
import { CONTRACT_SKIP_MESSAGE, OpenApiContract } from "../support/OpenApiContract.js";

if (!OpenApiContract.load()) console.warn(CONTRACT_SKIP_MESSAGE);

/**
 * Route CRUD per the current NotehubRoute: a type and one settings object named after its schema,
 * every type of the definition accepted and returned, the older client's `route_type`/`schema`
 * read too, secrets never shown, and the spec's roles (viewer reads, developer writes).
 */
describe("routes through the API", () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await TestHub.start();
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("creates an HTTP route with the hosted service's defaults, lists it and reads it", async () => {
    const created = await hub.post(
      hub.p("/routes"),
      {
        label: "ingest",
        type: "http",
        http: { url: "https://example.com/ingest", http_headers: { "X-Key": "k1" }, throttle_ms: 100 },
      },
      { as: "developer" },
    );
    expect(created.status).toBe(201);
    const route = created.json;
    expect(route.uid).toMatch(/^route:[0-9a-f]{32}$/);
    expect(route).toMatchObject({ label: "ingest", type: "http", disabled: false });
    expect(route.modified).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(route.http).toEqual({
      url: "https://example.com/ingest",
      http_headers: { "X-Key": "k1" },
      throttle_ms: 100,
      fleets: [],
      filter: { type: "", system_notefiles: false },
      transform: {},
      timeout: 0,
      disable_http_headers: false,
    });

    const list = await hub.get(hub.p("/routes"), { as: "viewer" });
    expect(list.status).toBe(200);
    expect(list.json).toContainEqual({
      uid: route.uid,
      label: "ingest",
      type: "http",
      modified: route.modified,
      disabled: false,
    });
    const one = await hub.get(hub.p(`/routes/${route.uid}`), { as: "viewer" });
    expect(one.json).toEqual(route);
    // The logs' project-prefixed form names the same route.
    expect((await hub.get(hub.p(`/routes/${hub.projectUid}/${route.uid}`))).status).toBe(404);
    expect(
      (await hub.get(hub.p(`/routes/${encodeURIComponent(`${hub.projectUid}/${route.uid}`)}`))).json,
    ).toEqual(route);
  });

  it("takes the type from the settings object when the body names none (the definition's own example)", async () => {
    const res = await hub.post(hub.p("/routes"), {
      label: "Route Label",
      http: {
        disable_http_headers: false,
        filter: {},
        http_headers: { "X-My-Header": "value" },
        throttle_ms: 100,
        timeout: 5000,
        transform: {},
        url: "https://example.com/ingest",
      },
    });
    expect(res.status).toBe(201);
    expect(res.json.type).toBe("http");
    expect(res.json.http.timeout).toBe(5000);
    // A type whose schema serves several types cannot be guessed.
    expectErrorBody(await hub.post(hub.p("/routes"), { aws: { region: "eu-west-1" } }), 400);
  });

  it("reads the older client's route_type and schema, and answers in the current shape", async () => {
    const res = await hub.post(hub.p("/routes"), {
      label: "older",
      route_type: "http",
      schema: { fleets: [], url: "http://route.url", throttle_ms: 100 },
      disabled: "false",
    });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({
      type: "http",
      disabled: false,
      http: { url: "http://route.url", throttle_ms: 100 },
    });
    expect(res.json.schema).toBeUndefined();
    expect(res.json.route_type).toBeUndefined();
  });

  it("accepts, stores and returns every route type of the definition, secrets as a placeholder", async () => {
    for (const [type, schema] of Object.entries(ROUTE_TYPES)) {
      const settings: Record<string, unknown> =
        type === "http" || type === "proxy"
          ? { url: "https://example.com/x", alias: "a" }
          : type === "mqtt"
            ? { broker: "broker.example.com", topic: "t", password: "secret" }
            : {};
      if (schema === "aws") Object.assign(settings, { region: "eu-west-1", access_key_secret: "s3cret" });
      const res = await hub.post(hub.p("/routes"), { label: type, type, [schema]: settings });
      expect(res.status, `${type}: ${res.text}`).toBe(201);
      expect(res.json.type).toBe(type);
      expect(res.json[schema]).toBeTypeOf("object");
      const back = await hub.get(hub.p(`/routes/${res.json.uid}`));
      expect(back.json.type).toBe(type);
      if (schema === "aws") expect(back.json.aws.access_key_secret).toBe(SECRET_PLACEHOLDER);
      if (schema === "mqtt") expect(back.json.mqtt.password).toBe(SECRET_PLACEHOLDER);
    }
  });

  it("updates only what the body names, keeps a secret sent back as its placeholder, and refuses a type change", async () => {
    const made = await hub.post(hub.p("/routes"), {
      label: "to change",
      type: "mqtt",
      mqtt: { broker: "broker.example.com", port: "1883", topic: "a/b", username: "u", password: "p4ss" },
    });
    const uid = made.json.uid;
    await hub.clock.advance(5000);
    const changed = await hub.put(
      hub.p(`/routes/${uid}`),
      {
        label: "changed",
        disabled: true,
        mqtt: { topic: "c/d", password: SECRET_PLACEHOLDER, throttle_ms: 50 },
      },
      { as: "developer" },
    );
    expect(changed.status).toBe(200);
    expect(changed.json).toMatchObject({
      uid,
      label: "changed",
      disabled: true,
      mqtt: { broker: "broker.example.com", port: "1883", topic: "c/d", username: "u", throttle_ms: 50 },
    });
    expect(changed.json.modified).not.toBe(made.json.modified);
    const stored = await hub.services.routing.get(hub.projectUid, uid);
    expect(stored?.settings.password).toBe("p4ss");
    // The older definition's integer port is kept as the current definition's string.
    const port = await hub.put(hub.p(`/routes/${uid}`), { mqtt: { port: 8883 } });
    expect(port.json.mqtt.port).toBe("8883");
    expectErrorBody(await hub.put(hub.p(`/routes/${uid}`), { type: "http" }), 400);
    expectErrorBody(await hub.put(hub.p(`/routes/${uid}`), { http: { url: "https://example.com" } }), 400);
    expectErrorBody(
      await hub.put(hub.p("/routes/route:0123456789abcdef0123456789abcdef"), { label: "x" }),
      404,
    );
  });

  it("deletes a route", async () => {
    const made = await hub.post(hub.p("/routes"), {
      type: "http",
      http: { url: "https://example.com/gone" },
    });
    const uid = made.json.uid;
    const gone = await hub.delete(hub.p(`/routes/${uid}`), { as: "developer" });
    expect(gone.status).toBe(204);
    expect(gone.text).toBe("");
    expectErrorBody(await hub.get(hub.p(`/routes/${uid}`)), 404);
    expectErrorBody(await hub.delete(hub.p(`/routes/${uid}`)), 404);
    expectErrorBody(await hub.get(hub.p(`/routes/${uid}/route-logs`)), 404);
    expect((await hub.get(hub.p("/routes"))).json.map((r: { uid: string }) => r.uid)).not.toContain(uid);
  });

  it("refuses malformed routes with a 400 that names the field", async () => {
    const cases: [unknown, RegExp][] = [
      [{ type: "http", http: {} }, /http\.url is required/],
      [{ type: "http", http: { url: "not a url" } }, /http\.url must be an absolute URL/],
      [{ type: "http", http: { url: "ftp://example.com/x" } }, /http\.url must be an http or https URL/],
      [{ type: "carrier-pigeon" }, /type must be one of/],
      [{ type: "http", http: { url: "https://a.example" }, mqtt: { broker: "b" } }, /one settings object/],
      [
        { type: "http", mqtt: { broker: "b", topic: "t" } },
        /mqtt does not hold the settings of a route of type http/,
      ],
      [
        { type: "http", http: { url: "https://a.example", filter: { type: "some" } } },
        /filter\.type must be one of/,
      ],
      [
        { type: "http", http: { url: "https://a.example", transform: { format: "xml" } } },
        /transform\.format/,
      ],
      [
        { type: "http", http: { url: "https://a.example", http_headers: { "X-A": "a\r\nb" } } },
        /line breaks/,
      ],
      [
        { type: "http", http: { url: "https://a.example", throttle_ms: -1 } },
        /throttle_ms must be a non-negative integer/,
      ],
      [
        { type: "http", http: { url: "https://a.example", fleets: "all" } },
        /fleets must be an array of strings/,
      ],
      [{ type: "proxy", proxy: { url: "https://a.example" } }, /proxy\.alias is required/],
      [{ type: "mqtt", mqtt: { broker: "b" } }, /mqtt\.topic is required/],
      [{ type: "http", label: 7, http: { url: "https://a.example" } }, /label must be a string/],
      [{ label: "nothing" }, /type is required/],
    ];
    for (const [body, message] of cases) {
      const res = await hub.post(hub.p("/routes"), body);
      expectErrorBody(res, 400);
      expect(res.json.err, JSON.stringify(body)).toMatch(message);
    }
    const other = await hub.post(hub.p("/routes"), {
      type: "http",
      http: { url: "https://a.example", fleets: ["fleet:00000000-0000-4000-8000-000000000000"] },
    });
    expectErrorBody(other, 400);
    expect(other.json.err).toMatch(/is not a fleet of this project/);
    expectErrorBody(await hub.post(hub.p("/routes"), undefined), 400);
  });

  it("lets viewers read, developers write, and nobody outside the project do either", async () => {
    const body = { type: "http", http: { url: "https://example.com/roles" } };
    expectErrorBody(await hub.post(hub.p("/routes"), body, { as: "viewer" }), 403);
    const made = await hub.post(hub.p("/routes"), body, { as: "developer" });
    expect(made.status).toBe(201);
    const uid = made.json.uid;
    expect((await hub.get(hub.p("/routes"), { as: "viewer" })).status).toBe(200);
    expect((await hub.get(hub.p(`/routes/${uid}`), { as: "viewer" })).status).toBe(200);
    expect((await hub.get(hub.p(`/routes/${uid}/route-logs`), { as: "viewer" })).status).toBe(200);
    expectErrorBody(await hub.put(hub.p(`/routes/${uid}`), { label: "x" }, { as: "viewer" }), 403);
    expectErrorBody(await hub.delete(hub.p(`/routes/${uid}`), { as: "viewer" }), 403);
    for (const [method, path] of [
      ["GET", "/routes"],
      ["GET", `/routes/${uid}`],
      ["GET", `/routes/${uid}/route-logs`],
      ["POST", "/routes"],
      ["PUT", `/routes/${uid}`],
      ["DELETE", `/routes/${uid}`],
      ["GET", "/usage/route-logs?period=day"],
    ] as const) {
      expectErrorBody(
        await hub.request(method, hub.p(path), {
          as: "outsider",
          body: method === "POST" || method === "PUT" ? body : undefined,
        }),
        403,
      );
      expectErrorBody(await hub.request(method, hub.p(path), { as: null }), 401);
    }
    // Another project's route is not found through this one.
    const theirs = await hub.post(`/v1/projects/${hub.otherProjectUid}/routes`, body, { as: "outsider" });
    expect(theirs.status).toBe(201);
    expectErrorBody(await hub.get(hub.p(`/routes/${theirs.json.uid}`)), 404);
    // A ProductUID names its project.
    expect((await hub.get(`/v1/projects/${hub.productUid}/routes/${uid}`)).status).toBe(200);
  });
});
