import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeBase64 } from "../../../core/base64.js";
import { eventDocument } from "../../../hub/events/eventDocument.js";
import type { DeviceRecord } from "../../../hub/store/records.js";
import { RoutingHub } from "./support/routingFixture.js";
import { HttpEndpoint } from "./support/servers.js";

/**
 * Events recorded by the hub reach a real HTTP server on loopback, shaped by the route's
 * transform, with its headers, for the notefiles and fleets its filter names. The hub runs in
 * process on a fake clock; only the HTTP exchange is real I/O.
 */
describe("events routed to an HTTP endpoint (fake clock, in process)", () => {
  let hub: RoutingHub;
  let endpoint: HttpEndpoint;
  let device: DeviceRecord;

  beforeEach(async () => {
    hub = await RoutingHub.start();
    endpoint = await HttpEndpoint.start();
    device = await hub.device({ serialNumber: "pump-7" });
  });

  afterEach(async () => {
    expect(hub.faults).toEqual([]);
    await hub.close();
    await endpoint.close();
  });

  const http = (settings: Record<string, unknown> = {}) =>
    hub.route({
      label: "to the endpoint",
      type: "http",
      http: { url: `${endpoint.url}/ingest?k=1`, ...settings },
    });

  it("posts the event JSON as stored, with the route's headers, and logs the attempt", async () => {
    const route = await http({ http_headers: { "X-Api-Key": "k-123", Authorization: "Bearer t" } });
    const event = await hub.event(device, "data.qo", { temp: 21.5, nested: { a: [1, 2] } });
    await hub.settle();
    expect(endpoint.received).toHaveLength(1);
    const got = endpoint.received[0]!;
    expect(got.method).toBe("POST");
    expect(got.url).toBe("/ingest?k=1");
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["x-api-key"]).toBe("k-123");
    expect(got.headers.authorization).toBe("Bearer t");
    expect(got.headers["user-agent"]).toBe("cardsim-hub");
    expect(got.headers["x-cardsim-route"]).toBe(route.uid);
    expect(got.headers["x-cardsim-event"]).toBe(event.uid);
    expect(got.json).toEqual(eventDocument(event));
    expect(got.json).toMatchObject({
      event: event.uid,
      device: device.uid,
      file: "data.qo",
      body: { temp: 21.5, nested: { a: [1, 2] } },
      when: event.whenSec,
      received: event.received,
      app: hub.projectUid,
    });
    const logs = await hub.logs(route.uid);
    expect(logs).toEqual([
      {
        projectUid: hub.projectUid,
        routeUid: route.uid,
        eventUid: event.uid,
        deviceUid: device.uid,
        file: "data.qo",
        dateMs: hub.clock.now(),
        durationMs: 0,
        attn: false,
        status: "200",
        text: "ok",
        url: `${endpoint.url}/ingest?k=1`,
        source: "routing",
      },
    ]);
    expect(hub.routing.pending().size).toBe(0);
  });

  it("sends the body, the payload, the event flattened or simplified, as the transform says", async () => {
    const formats = ["body", "payload", "flatten", "simple"] as const;
    const routes = new Map<string, string>();
    for (const format of formats) {
      const route = await hub.route({
        label: format,
        type: "http",
        http: { url: `${endpoint.url}/${format}`, transform: { format } },
      });
      routes.set(route.uid, format);
    }
    const payload = new Uint8Array([0, 1, 2, 250, 255]);
    const event = await hub.event(
      device,
      "data.qo",
      { temp: 20, where: { lat: 1.5 } },
      encodeBase64(payload),
    );
    await hub.settle();
    expect(endpoint.received).toHaveLength(4);
    const by = (path: string) => endpoint.received.find((r) => r.url === path)!;

    expect(by("/body").json).toEqual({ temp: 20, where: { lat: 1.5 } });
    expect(by("/body").headers["content-type"]).toBe("application/json");

    expect(new Uint8Array(by("/payload").body)).toEqual(payload);
    expect(by("/payload").headers["content-type"]).toBe("application/octet-stream");

    const flat = by("/flatten").json as Record<string, unknown>;
    expect(flat).toMatchObject({
      event: event.uid,
      device: device.uid,
      file: "data.qo",
      "body.temp": 20,
      "body.where.lat": 1.5,
      payload: encodeBase64(payload),
    });
    expect(Object.values(flat).every((v) => v === null || typeof v !== "object")).toBe(true);

    expect(by("/simple").json).toEqual({
      event: event.uid,
      device: device.uid,
      product: device.productUid,
      app: hub.projectUid,
      file: "data.qo",
      when: event.whenSec,
      received: event.received,
      body: { temp: 20, where: { lat: 1.5 } },
      payload: encodeBase64(payload),
    });
    const logs = await hub.logs();
    expect(logs.map((l) => [routes.get(l.routeUid), l.status, l.attn])).toEqual(
      expect.arrayContaining(formats.map((f) => [f, "200", false])),
    );
  });

  it("sends what a JSONata expression makes (text as text), skips events it calls $doNotRoute() on, and logs its errors", async () => {
    const shaped = await http({
      transform: {
        format: "jsonata",
        jsonata: '{"id": device, "celsius": body.temp, "f": body.temp * 9 / 5 + 32}',
      },
    });
    await hub.event(device, "data.qo", { temp: 20 });
    await hub.settle();
    expect(endpoint.received.map((r) => r.json)).toEqual([{ id: device.uid, celsius: 20, f: 68 }]);
    await hub.routing.delete(hub.projectUid, shaped.uid);

    const filtering = await http({
      transform: { format: "jsonata", jsonata: 'body.temp > 30 ? {"alarm": body.temp} : $doNotRoute()' },
    });
    await hub.event(device, "data.qo", { temp: 25 });
    await hub.event(device, "data.qo", { temp: 35 });
    await hub.settle();
    expect(endpoint.received.map((r) => r.json)).toEqual([
      { id: device.uid, celsius: 20, f: 68 },
      { alarm: 35 },
    ]);
    expect((await hub.logs(filtering.uid)).map((l) => l.status)).toEqual(["200"]);
    expect(hub.routing.pending().size).toBe(0);
    await hub.routing.delete(hub.projectUid, filtering.uid);

    const text = await http({ transform: { format: "jsonata", jsonata: '"temp=" & $string(body.temp)' } });
    await hub.event(device, "data.qo", { temp: 7 });
    await hub.settle();
    expect(endpoint.received.at(-1)!.body.toString("utf8")).toBe("temp=7");
    expect(endpoint.received.at(-1)!.headers["content-type"]).toBe("text/plain; charset=utf-8");
    await hub.routing.delete(hub.projectUid, text.uid);

    const sent = endpoint.received.length;
    const broken = await http({ transform: { format: "jsonata", jsonata: '{"a": body.temp' } });
    const runaway = await http({
      transform: { format: "jsonata", jsonata: "($f := function($x){ $f($x + 1) }; $f(0))" },
    });
    const empty = await http({ transform: { format: "jsonata", jsonata: "body.missing" } });
    await hub.event(device, "data.qo", { temp: 1 });
    await hub.settle();
    expect(endpoint.received.length).toBe(sent);
    const [brokenLog] = await hub.logs(broken.uid);
    expect(brokenLog).toMatchObject({ attn: true, status: "transform error" });
    expect(brokenLog!.text).toMatch(/^JSONata error: .*\(S0203 at \d+\)$/);
    const [runawayLog] = await hub.logs(runaway.uid);
    expect(runawayLog).toMatchObject({ attn: true, status: "transform error" });
    expect(runawayLog!.text).toMatch(
      /JSONata expression (recursed deeper than 500 levels|ran longer than 1000 ms)/,
    );
    expect(await hub.logs(empty.uid)).toMatchObject([{ attn: true, text: /produced no value/ }]);
    // A transform error is not retried: it would fail the same way.
    await hub.advance(10 * 60_000);
    expect(await hub.logs(broken.uid)).toHaveLength(1);
    expect(hub.routing.pending().size).toBe(0);
  });

  it("reads $now() and $millis() from the hub's clock, so a fake clock shapes what a route sends", async () => {
    const timed = await http({
      transform: {
        format: "jsonata",
        jsonata: '{"at": $now(), "ms": $millis(), "local": $now("[H01]:[m01]", "+0200")}',
      },
    });
    await hub.advance(3 * 60 * 60_000);
    const ms = hub.clock.now();
    await hub.event(device, "data.qo", { temp: 1 });
    await hub.settle();
    const sent = endpoint.received.at(-1)!.json as { at: string; ms: number; local: string };
    expect(sent.ms).toBe(ms);
    expect(sent.at).toBe(new Date(ms).toISOString());
    const inZone = new Date(ms + 2 * 3600_000);
    const hhmm = (n: number) => String(n).padStart(2, "0");
    expect(sent.local).toBe(`${hhmm(inZone.getUTCHours())}:${hhmm(inZone.getUTCMinutes())}`);
    expect(Math.abs(ms - Date.now())).toBeGreaterThan(60_000); // the fake clock, not the machine's
    await hub.routing.delete(hub.projectUid, timed.uid);
  });

  it("drops its default and configured headers with disable_http_headers, keeping the content type", async () => {
    await http({ http_headers: { "X-Api-Key": "k" }, disable_http_headers: true });
    await hub.event(device, "data.qo", { temp: 1 });
    await hub.settle();
    const headers = endpoint.received[0]!.headers;
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["x-api-key"]).toBeUndefined();
    expect(headers["user-agent"]).toBeUndefined();
    expect(headers["x-cardsim-event"]).toBeUndefined();
  });

  it("routes the notefiles and fleets its filter names, system notefiles only when asked", async () => {
    const fleet = hub.store.projects.createFleet({
      uid: "fleet:11111111-1111-4111-8111-111111111111",
      projectUid: hub.projectUid,
      label: "pumps",
      created: hub.clock.now(),
      smartRule: null,
      smartRuleEnabled: false,
      watchdogMins: 0,
      connectivityAssurance: null,
    });
    await fleet;
    const inFleet = await hub.device();
    await hub.store.devices.addToFleets(inFleet.uid, ["fleet:11111111-1111-4111-8111-111111111111"]);
    const all = await hub.route({ label: "all", type: "http", http: { url: `${endpoint.url}/all` } });
    const system = await hub.route({
      label: "system",
      type: "http",
      http: { url: `${endpoint.url}/system`, filter: { type: "all", system_notefiles: true } },
    });
    const include = await hub.route({
      label: "include",
      type: "http",
      http: {
        url: `${endpoint.url}/include`,
        filter: { type: "include", files: ["data.qo", "sensor-*.qo", "_track.qo"] },
      },
    });
    const exclude = await hub.route({
      label: "exclude",
      type: "http",
      http: { url: `${endpoint.url}/exclude`, filter: { type: "exclude", files: ["data.qo"] } },
    });
    const fleets = await hub.route({
      label: "fleet",
      type: "http",
      http: { url: `${endpoint.url}/fleet`, fleets: ["fleet:11111111-1111-4111-8111-111111111111"] },
    });
    await hub.event(device, "data.qo", { n: 1 });
    await hub.event(device, "sensor-3.qo", { n: 2 });
    await hub.event(device, "other.qo", { n: 3 });
    await hub.event(device, "_session.qo", { n: 4 });
    await hub.event(device, "_track.qo", { n: 5 });
    await hub.event(inFleet, "data.qo", { n: 6 });
    await hub.settle();
    const got = (path: string) =>
      endpoint.received.filter((r) => r.url === path).map((r) => (r.json as { body: { n: number } }).body.n);
    expect(got("/all")).toEqual([1, 2, 3, 6]);
    expect(got("/system")).toEqual([1, 2, 3, 4, 5, 6]);
    expect(got("/include")).toEqual([1, 2, 5, 6]);
    expect(got("/exclude")).toEqual([2, 3]);
    expect(got("/fleet")).toEqual([6]);
    for (const route of [all, system, include, exclude, fleets]) {
      expect((await hub.logs(route.uid)).every((l) => l.status === "200")).toBe(true);
    }
  });

  it("delivers each route's events in order, every route side by side; a disabled route takes none", async () => {
    const a = await http();
    const b = await hub.route({ label: "b", type: "http", http: { url: `${endpoint.url}/b` } });
    const off = await hub.route({
      label: "off",
      type: "http",
      disabled: true,
      http: { url: `${endpoint.url}/off` },
    });
    for (let n = 0; n < 20; n++) await hub.event(device, "data.qo", { n });
    await hub.settle();
    const order = (path: string) =>
      endpoint.received
        .filter((r) => r.url.startsWith(path))
        .map((r) => (r.json as { body: { n: number } }).body.n);
    expect(order("/ingest")).toEqual([...Array(20).keys()]);
    expect(order("/b")).toEqual([...Array(20).keys()]);
    expect(order("/off")).toEqual([]);
    expect(await hub.logs(a.uid)).toHaveLength(20);
    expect(await hub.logs(b.uid)).toHaveLength(20);
    expect(await hub.logs(off.uid)).toHaveLength(0);
  });

  it("keeps throttle_ms between a route's requests, on the hub clock", async () => {
    const route = await http({ throttle_ms: 1000 });
    for (let n = 0; n < 3; n++) await hub.event(device, "data.qo", { n });
    await hub.settle();
    expect(endpoint.received).toHaveLength(1);
    await hub.advance(999);
    expect(endpoint.received).toHaveLength(1);
    await hub.advance(1);
    expect(endpoint.received).toHaveLength(2);
    await hub.advance(1000);
    expect(endpoint.received).toHaveLength(3);
    const start = (await hub.logs(route.uid)).map((l) => l.dateMs - (hub.clock.now() - 2000));
    expect(start).toEqual([0, 1000, 2000]);
  });

  it("stores routes of the types it cannot deliver and logs each of their events as not available", async () => {
    const aws = await hub.route({
      label: "lambda",
      type: "aws-lambda",
      aws: { url: "https://lambda.example.com/fn", region: "eu-west-1" },
    });
    const event = await hub.event(device, "data.qo", { temp: 1 });
    await hub.settle();
    expect(endpoint.received).toHaveLength(0);
    expect(await hub.logs(aws.uid)).toMatchObject([
      {
        eventUid: event.uid,
        attn: true,
        status: "not available",
        text: "routes of type aws-lambda are not available in this simulator: the event was not sent",
        url: "https://lambda.example.com/fn",
        source: "routing",
      },
    ]);
    await hub.advance(10 * 60_000);
    expect(await hub.logs(aws.uid)).toHaveLength(1);
  });

  it("re-routes an event by hand to the routes named, or to every route that takes it", async () => {
    const a = await http();
    const b = await hub.route({ label: "b", type: "http", http: { url: `${endpoint.url}/b` } });
    const event = await hub.event(device, "data.qo", { temp: 1 });
    await hub.settle();
    expect(await hub.routing.reroute(hub.projectUid, event.uid, [b.uid])).toEqual([b.uid]);
    await hub.settle();
    expect((await hub.logs(b.uid)).map((l) => l.source)).toEqual(["routing", "manual reroute"]);
    expect((await hub.routing.reroute(hub.projectUid, event.uid))?.sort()).toEqual([a.uid, b.uid].sort());
    await hub.settle();
    expect((await hub.logs(a.uid)).map((l) => l.source)).toEqual(["routing", "manual reroute"]);
    expect(await hub.routing.reroute(hub.projectUid, "00000000-0000-4000-8000-000000000000")).toBeUndefined();
    expect(endpoint.received).toHaveLength(5);
  });
});
