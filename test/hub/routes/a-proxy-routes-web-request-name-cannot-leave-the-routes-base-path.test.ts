import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WEB_ERRORS, type WebRequestMessage } from "../../../protocol/messages.js";
import { PROTOCOL_VERSION } from "../../../protocol/version.js";
import { WebRequestError } from "../../../hub/routing/RoutingService.js";
import type { DeviceRecord } from "../../../hub/store/records.js";
import { WebProxy } from "../../../hub/sync/WebProxy.js";
import { SyncRefusal } from "../../../hub/sync/SyncRefusal.js";
import { RoutingHub } from "./support/routingFixture.js";
import { HttpEndpoint } from "./support/servers.js";

/**
 * A proxy route to `…/api` lets the module reach what is under `/api` and nothing else: a web
 * request's `name` is resolved under the route's URL and refused when it would leave it (dot
 * segments in any spelling), with the module's error for a bad route (`{web-route}`); nothing is
 * sent, the refusal is logged, and a request that is sent is logged with the URL it reached.
 */
describe("proxy route base path (fake clock, loopback endpoint)", () => {
  let hub: RoutingHub;
  let endpoint: HttpEndpoint;
  let device: DeviceRecord;

  beforeEach(async () => {
    hub = await RoutingHub.start();
    endpoint = await HttpEndpoint.start();
    endpoint.handler = (req, res) => {
      res.end(req.url!.startsWith("/api") ? "public data" : "the secret");
    };
    device = await hub.device();
    await hub.route({ label: "api", type: "proxy", proxy: { alias: "api", url: `${endpoint.url}/api` } });
  });

  afterEach(async () => {
    expect(hub.faults).toEqual([]);
    await hub.close();
    await endpoint.close();
  });

  const request = (name: string) =>
    hub.routing.webRequest({
      projectUid: hub.projectUid,
      deviceUid: device.uid,
      alias: "api",
      method: "GET",
      name,
    });

  it.each([
    "../secret",
    "%2e%2e/secret",
    "%2E%2E/secret",
    "/..\\secret",
    "..%2fsecret",
    "..%5csecret",
    "%252e%252e/secret",
    "a/../../secret",
    "./../secret",
    "..",
    "../api-other/x",
  ])("refuses %s with the error of a bad route, sending nothing", async (name) => {
    const error = await request(name).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WebRequestError);
    expect((error as WebRequestError).code).toBe("no-route");
    expect((error as WebRequestError).message).toContain("leaves the route's URL");
    expect(endpoint.received).toEqual([]);
    const logs = await hub.logs();
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({
      attn: true,
      status: "refused",
      url: `${endpoint.url}/api`,
      source: "web proxy",
    });
    expect(logs[0]!.text).toContain(JSON.stringify(name));
  });

  it("the module's web request is refused {web-route} through the sync's web proxy", async () => {
    const proxy = new WebProxy(hub.routing, hub.clock);
    const refusal = await proxy
      .handle({ deviceUid: device.uid, projectUid: hub.projectUid }, {
        v: PROTOCOL_VERSION,
        type: "web",
        token: "t",
        route: "api",
        method: "GET",
        name: "%2e%2e/secret",
        seconds: 10,
        max: 8192,
      } as unknown as WebRequestMessage)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refusal).toBeInstanceOf(SyncRefusal);
    expect((refusal as SyncRefusal).code).toBe(WEB_ERRORS.noRoute);
    expect(endpoint.received).toEqual([]);
  });

  it("reaches what is under the base, and logs the URL it requested", async () => {
    for (const name of ["items", "/items/7?x=../y", "a/./b", "v..2/x", "%2e%2ehidden", "?q=1"]) {
      const answer = await request(name);
      expect(answer.status).toBe(200);
      expect(new TextDecoder().decode(answer.body)).toBe("public data");
    }
    expect(endpoint.received.map((r) => r.url)).toEqual([
      "/api/items",
      "/api/items/7?x=../y",
      "/api/a/b",
      "/api/v..2/x",
      "/api/%2e%2ehidden",
      "/api?q=1",
    ]);
    expect((await hub.logs()).map((l) => l.url)).toEqual(
      endpoint.received.map((r) => `${endpoint.url}${r.url}`),
    );
  });
});
