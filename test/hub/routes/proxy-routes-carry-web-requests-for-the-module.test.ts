import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebRequestError } from "../../../hub/routing/RoutingService.js";
import type { DeviceRecord } from "../../../hub/store/records.js";
import { RoutingHub } from "./support/routingFixture.js";
import { closedPort, HttpEndpoint } from "./support/servers.js";

const text = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
const json = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));

/**
 * What the module's web.* requests will call through the device sync: `routing.proxy` finds a
 * project's proxy route by alias, `routing.webRequest` makes the request with the route's URL,
 * headers, timeout and JSONata, and logs it (source "web proxy"). A real HTTP server on loopback,
 * the hub's clock fake.
 */
describe("proxy routes and web requests (fake clock, in process)", () => {
  let hub: RoutingHub;
  let endpoint: HttpEndpoint;
  let device: DeviceRecord;

  beforeEach(async () => {
    hub = await RoutingHub.start();
    endpoint = await HttpEndpoint.start();
    device = await hub.device();
  });

  afterEach(async () => {
    expect(hub.faults).toEqual([]);
    await hub.close();
    await endpoint.close();
  });

  const proxy = (settings: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
    hub.route({
      label: "weather",
      type: "proxy",
      proxy: {
        alias: "weather",
        url: `${endpoint.url}/api/`,
        http_headers: { "X-Api-Key": "k-9" },
        ...settings,
      },
      ...extra,
    });

  it("finds a proxy route by alias, for devices of its fleets only", async () => {
    const route = await proxy({ timeout: 7, transform: { format: "jsonata", jsonata_in: "$" } });
    expect(await hub.routing.proxy(hub.projectUid, "weather")).toEqual({
      routeUid: route.uid,
      url: `${endpoint.url}/api/`,
      headers: { "X-Api-Key": "k-9" },
      timeoutMs: 7000,
      transform: { format: "jsonata", jsonata_in: "$" },
    });
    expect(await hub.routing.proxy(hub.projectUid, "Weather")).toBeUndefined();
    expect(await hub.routing.proxy("app:00000000-0000-4000-8000-000000000000", "weather")).toBeUndefined();

    await hub.store.projects.createFleet({
      uid: "fleet:22222222-2222-4222-8222-222222222222",
      projectUid: hub.projectUid,
      label: "gauges",
      created: hub.clock.now(),
      smartRule: null,
      smartRuleEnabled: false,
      watchdogMins: 0,
      connectivityAssurance: null,
    });
    const member = await hub.device();
    await hub.store.devices.addToFleets(member.uid, ["fleet:22222222-2222-4222-8222-222222222222"]);
    await hub.routing.update(hub.projectUid, route.uid, {
      proxy: { fleets: ["fleet:22222222-2222-4222-8222-222222222222"] },
    });
    expect(await hub.routing.proxy(hub.projectUid, "weather", member.uid)).toBeDefined();
    expect(await hub.routing.proxy(hub.projectUid, "weather", device.uid)).toBeUndefined();
    await hub.routing.update(hub.projectUid, route.uid, { disabled: true });
    expect(await hub.routing.proxy(hub.projectUid, "weather", member.uid)).toBeUndefined();
  });

  it("makes the request at the route's URL with the name appended and the route's headers, and logs it", async () => {
    const route = await proxy();
    endpoint.handler = (req, res) => {
      res.setHeader("Content-Type", "application/json");
      res.end(JSON.stringify({ got: req.url, method: req.method }));
    };
    const answer = await hub.routing.webRequest({
      projectUid: hub.projectUid,
      deviceUid: device.uid,
      alias: "weather",
      method: "get",
      name: "/forecast?city=Oslo",
    });
    expect(answer).toMatchObject({
      status: 200,
      truncated: false,
      url: `${endpoint.url}/api/forecast?city=Oslo`,
      routeUid: route.uid,
    });
    expect(answer.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(text(answer.body))).toEqual({ got: "/api/forecast?city=Oslo", method: "GET" });
    const got = endpoint.received[0]!;
    expect(got.headers["x-api-key"]).toBe("k-9");
    expect(got.headers["content-type"]).toBeUndefined(); // no body, no content type

    await hub.routing.webRequest({
      projectUid: hub.projectUid,
      deviceUid: device.uid,
      alias: "weather",
      name: "readings",
      body: json({ temp: 3 }),
      eventUid: "0f3c1c8e-3f7e-4a55-9a55-000000000001",
    });
    const posted = endpoint.received[1]!;
    expect([posted.method, posted.url, posted.headers["content-type"]]).toEqual([
      "POST",
      "/api/readings",
      "application/json",
    ]);
    expect(posted.json).toEqual({ temp: 3 });

    expect(
      (await hub.logs(route.uid)).map((l) => [
        l.source,
        l.status,
        l.attn,
        l.url,
        l.eventUid,
        l.deviceUid,
        l.file,
      ]),
    ).toEqual([
      ["web proxy", "200", false, `${endpoint.url}/api/forecast?city=Oslo`, "", device.uid, ""],
      [
        "web proxy",
        "200",
        false,
        `${endpoint.url}/api/readings`,
        "0f3c1c8e-3f7e-4a55-9a55-000000000001",
        device.uid,
        "",
      ],
    ]);
    // Proxy routes carry web requests only: events do not go to them.
    await hub.event(device, "data.qo", { temp: 1 });
    await hub.settle();
    expect(endpoint.received).toHaveLength(2);
  });

  it("reshapes a JSON request with `jsonata` and a JSON answer with `jsonata_in`", async () => {
    await proxy({
      transform: { format: "jsonata", jsonata: '{"celsius": temp}', jsonata_in: "reading.value" },
    });
    endpoint.handler = (_req, res) => {
      res.setHeader("Content-Type", "application/json; charset=utf-8");
      res.end(JSON.stringify({ reading: { value: { ok: true } } }));
    };
    const answer = await hub.routing.webRequest({
      projectUid: hub.projectUid,
      deviceUid: device.uid,
      alias: "weather",
      body: json({ temp: 5 }),
    });
    expect(endpoint.received[0]!.json).toEqual({ celsius: 5 });
    expect(JSON.parse(text(answer.body))).toEqual({ ok: true });
  });

  it("returns a redirect as it is, cuts long answers, and refuses an unknown alias", async () => {
    await proxy();
    endpoint.handler = (req, res) => {
      if (req.url === "/api/moved") {
        res.statusCode = 301;
        res.setHeader("Location", "https://elsewhere.example/");
        res.end();
      } else res.end("y".repeat(10_000));
    };
    const moved = await hub.routing.webRequest({
      projectUid: hub.projectUid,
      deviceUid: device.uid,
      alias: "weather",
      method: "GET",
      name: "moved",
    });
    expect([moved.status, moved.headers.location]).toEqual([301, "https://elsewhere.example/"]);
    expect(endpoint.received).toHaveLength(1);
    const long = await hub.routing.webRequest({
      projectUid: hub.projectUid,
      deviceUid: device.uid,
      alias: "weather",
      method: "GET",
      maxBytes: 8192,
    });
    expect([long.body.length, long.truncated]).toEqual([8192, true]);
    const refused = await hub.routing
      .webRequest({ projectUid: hub.projectUid, deviceUid: device.uid, alias: "nope" })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WebRequestError);
    expect((refused as WebRequestError).code).toBe("no-route");
  });

  it("fails with a timeout (the shorter of the route's and the caller's) or when nothing answers, logged with attn", async () => {
    const route = await proxy({ timeout: 20 });
    endpoint.handler = () => undefined; // never answers
    const pending = hub.routing
      .webRequest({
        projectUid: hub.projectUid,
        deviceUid: device.uid,
        alias: "weather",
        method: "GET",
        timeoutMs: 3000,
      })
      .catch((e: unknown) => e);
    await endpoint.receivedCount(1);
    await hub.clock.advance(3000);
    const timedOut = (await pending) as WebRequestError;
    expect([timedOut.code, timedOut.message]).toEqual(["timeout", "no complete answer within 3000 ms"]);

    const port = await closedPort();
    await hub.routing.update(hub.projectUid, route.uid, { proxy: { url: `http://127.0.0.1:${port}` } });
    const unreachable = (await hub.routing
      .webRequest({ projectUid: hub.projectUid, deviceUid: device.uid, alias: "weather" })
      .catch((e: unknown) => e)) as WebRequestError;
    expect(unreachable.code).toBe("unreachable");
    expect((await hub.logs(route.uid)).map((l) => [l.status, l.attn, l.durationMs])).toEqual([
      ["timeout", true, 3000],
      ["connection failed", true, 0],
    ]);
  });
});
