import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
// @ts-expect-error The client ships no type declarations (CommonJS, Babel-built).
import NotehubJs from "@blues-inc/notehub-js";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeBase64 } from "../../../core/base64.js";
import { bootstrapHub, NO_SIGN_IN } from "../../../hub/bootstrap.js";
import { buildHubApp } from "../../../hub/HubApp.js";
import { HubIds } from "../../../hub/HubIds.js";
import { createHubServices, type HubServices } from "../../../hub/HubServices.js";
import { SqliteHubStore } from "../../../hub/store/sqlite/SqliteHubStore.js";
import { SystemClock } from "../../../runtime/SystemClock.js";
import { until } from "../../support/waiting.js";
import { OpenApiContract } from "../support/OpenApiContract.js";
import { HttpEndpoint, MqttBroker } from "./support/servers.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * A hub listening on loopback on the real clock, driven over HTTP: the official client
 * (@blues-inc/notehub-js 1.0.27-beta.5) manages the routes and reads their logs, notes added
 * through the API become events, and the routes deliver them to real servers the test started:
 * an HTTP endpoint (every transform format, and a failing one retried) and an MQTT broker. The
 * retry delays are shortened (a service option) so the real clock gets through them.
 */
describe("a listening hub on the real clock", () => {
  let dir: string;
  let store: SqliteHubStore;
  let services: HubServices;
  let app: FastifyInstance;
  let url: string;
  let token: string;
  let project: string;
  let client: any;
  let routes: any;
  let endpoint: HttpEndpoint;
  let broker: MqttBroker;
  const device = "dev:864475040523995";
  const faults: unknown[] = [];
  /** Answers to the test's own requests that break the OpenAPI contract (the client's are its models' business). */
  const violations: string[] = [];

  const api = async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    const contract = OpenApiContract.load();
    if (contract) {
      const checked = contract.check(
        method,
        path.split("?")[0]!,
        res.status,
        res.headers.get("content-type") ?? "",
        text,
      );
      violations.push(...checked.problems);
    }
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  /** Waits until `check` holds, looking again whenever routing starts or ends an attempt or writes logs. */
  const whenRouted = (check: () => Promise<boolean>, what: string) =>
    until((fire) => services.routing.onChange(fire), check, what);
  const addNote = (file: string, body: unknown, payload?: string) =>
    api("POST", `/v1/projects/${project}/devices/${device}/notes/${file}`, {
      body,
      ...(payload ? { payload } : {}),
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "cardsim-routes-live-"));
    store = new SqliteHubStore(join(dir, "hub.db"));
    const clock = new SystemClock();
    const ids = new HubIds();
    services = createHubServices({
      store,
      clock,
      ids,
      rateLimits: false,
      routing: { retryDelaysMs: [200, 400, 600] },
      onRoutingError: (e) => faults.push(e),
      onListenerError: (e) => faults.push(e),
    });
    ({ app } = await buildHubApp({ services }));
    await app.listen({ host: "127.0.0.1", port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const made = await bootstrapHub(store, ids, clock, NO_SIGN_IN);
    token = made.token;
    project = made.state.project_uid;
    await store.devices.putDevice({
      uid: device,
      projectUid: project,
      productUid: made.state.product_uid,
      provisioned: clock.now(),
    });
    client = new NotehubJs.ApiClient(url);
    client.authentications.api_key.apiKey = token;
    routes = new NotehubJs.RouteApi(client);
    endpoint = await HttpEndpoint.start();
    broker = await MqttBroker.start();
  });

  afterAll(async () => {
    await app.close();
    await services.routing.stop();
    await store.close();
    await endpoint.close();
    await broker.close();
    await rm(dir, { recursive: true, force: true });
    expect(faults).toEqual([]);
    expect(violations).toEqual([]);
  });

  it("delivers events to an HTTP endpoint in every transform format, routes made with the official client", async () => {
    const formats = ["", "body", "payload", "flatten", "simple", "jsonata"];
    const made: Record<string, string> = {};
    for (const format of formats) {
      const route = await routes.createRoute(project, {
        label: `format ${format || "none"}`,
        type: "http",
        http: {
          url: `${endpoint.url}/${format || "none"}`,
          filter: { type: "include", files: ["live.qi"] },
          transform: format === "jsonata" ? { format, jsonata: '{"t": body.temp}' } : { format },
        },
      });
      expect(route.uid).toMatch(/^route:[0-9a-f]{32}$/);
      made[format] = route.uid;
    }
    const listed = await routes.getRoutes(project);
    expect(listed.map((r: any) => r.uid)).toEqual(expect.arrayContaining(Object.values(made)));
    expect((await routes.getRoute(project, made.body)).label).toBe("format body");

    await addNote("live.qi", { temp: 19.5 }, encodeBase64(new Uint8Array([1, 2, 3])));
    await endpoint.receivedCount(formats.length);
    const by = (path: string) => endpoint.received.find((r) => r.url === path)!;
    const full = by("/none").json as any;
    expect(full).toMatchObject({
      device,
      file: "live.qi",
      req: "note.add",
      body: { temp: 19.5 },
      payload: "AQID",
    });
    expect(by("/body").json).toEqual({ temp: 19.5 });
    expect([...by("/payload").body]).toEqual([1, 2, 3]);
    expect(by("/flatten").json).toMatchObject({ "body.temp": 19.5, event: full.event });
    expect(by("/simple").json).toMatchObject({ event: full.event, body: { temp: 19.5 }, file: "live.qi" });
    expect(by("/jsonata").json).toEqual({ t: 19.5 });

    // Logs through the official client (the older definition's field names) and by event.
    await whenRouted(
      async () => (await routes.getRouteLogsByRoute(project, made.body)).length === 1,
      "a log",
    );
    const [log] = await routes.getRouteLogsByRoute(project, made.body, { pageSize: 10 });
    expect(log).toMatchObject({
      routeUID: `${project}/${made.body}`,
      eventUID: full.event,
      attn: false,
      status: "200",
    });
    const byEvent = await new NotehubJs.EventApi(client).getRouteLogsByEvent(project, full.event);
    expect(byEvent).toHaveLength(formats.length);

    for (const uid of Object.values(made)) await routes.deleteRoute(project, uid);
    expect(await routes.getRoutes(project)).toEqual([]);
  });

  it("logs a failing endpoint's attempts with attn and retries them until it answers", async () => {
    let failures = 2;
    endpoint.handler = (req, res) => {
      if (req.url === "/flaky" && failures-- > 0) {
        res.statusCode = 500;
        res.end("not now");
      } else res.end("ok");
    };
    const route = await routes.createRoute(project, {
      label: "flaky",
      route_type: "http",
      schema: { fleets: [], url: `${endpoint.url}/flaky`, filter: { type: "include", files: ["flaky.qi"] } },
    });
    await addNote("flaky.qi", { n: 1 });
    await whenRouted(
      async () => (await api("GET", `/v1/projects/${project}/routes/${route.uid}/route-logs`)).length === 3,
      "three logs",
    );
    const logs = await api("GET", `/v1/projects/${project}/routes/${route.uid}/route-logs?sortOrder=asc`);
    expect(logs.map((l: any) => [l.status, l.attn, l.source, l.text])).toEqual([
      ["500", true, "routing", "not now"],
      ["500", true, "retry", "not now"],
      ["200", false, "retry", "ok"],
    ]);
    const gaps = logs.slice(1).map((l: any, i: number) => Date.parse(l.date) - Date.parse(logs[i].date));
    expect(gaps[0]).toBeGreaterThanOrEqual(200);
    expect(gaps[1]).toBeGreaterThanOrEqual(400);
    const updated = await routes.updateRoute(project, route.uid, { disabled: true });
    expect(updated.disabled).toBe(true);
  });

  it("publishes events to an MQTT broker", async () => {
    await api("POST", `/v1/projects/${project}/routes`, {
      label: "mqtt",
      type: "mqtt",
      mqtt: {
        broker: "127.0.0.1",
        port: String(broker.port),
        topic: "live/events",
        filter: { type: "include", files: ["mqtt.qi"] },
      },
    });
    await addNote("mqtt.qi", { level: 3 });
    await broker.publishedCount(1);
    expect(broker.published[0]!.topic).toBe("live/events");
    expect(JSON.parse(broker.published[0]!.payload.toString("utf8"))).toMatchObject({
      device,
      body: { level: 3 },
    });
    const usage = await api("GET", `/v1/projects/${project}/usage/route-logs?period=day&aggregate=project`);
    expect(usage.route_logs[0].total_routes).toBeGreaterThanOrEqual(10);
  });
});
