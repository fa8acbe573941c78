import type { LookupAddress } from "node:dns";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WebRequestError } from "../../../hub/routing/RoutingService.js";
import type { ListeningAddress, RouteTargetPolicy } from "../../../hub/routing/RouteTargets.js";
import { ServiceError } from "../../../hub/ServiceError.js";
import type { DeviceRecord } from "../../../hub/store/records.js";
import { RoutingHub } from "./support/routingFixture.js";
import { HttpEndpoint, MqttBroker } from "./support/servers.js";

/**
 * Route targets: a route (http, proxy, mqtt) may not point at the hub's own listening addresses
 * (refused when it is created or updated, and again at each delivery, where its host is resolved),
 * and under `public-only` at no loopback, private, link-local or metadata address. A refused
 * delivery is logged (status `refused`) and not retried. Every target here is on loopback: the
 * "hub" is an HTTP server of the test holding a secret, and host names resolve through a lookup
 * the test injects (to loopback addresses only).
 */
describe("route targets (fake clock, in process, loopback servers)", () => {
  let hub: RoutingHub;
  let api: HttpEndpoint;
  let backend: HttpEndpoint;
  let device: DeviceRecord;
  let listening: ListeningAddress[];
  const names = new Map<string, LookupAddress[]>();

  async function start(policy: RouteTargetPolicy, path?: string): Promise<void> {
    hub = await RoutingHub.start({
      ...(path ? { path } : {}),
      routing: {
        targets: {
          policy,
          listening: () => listening,
          lookup: async (host) => {
            const found = names.get(host);
            if (!found) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
            return found;
          },
          localAddresses: () => ["127.0.0.1", "::1"],
        },
      },
    });
    device = await hub.device();
  }

  beforeEach(async () => {
    api = await HttpEndpoint.start();
    api.handler = (_req, res) => {
      res.end("the hub's secret");
    };
    backend = await HttpEndpoint.start();
    backend.handler = (_req, res) => {
      res.end("backend ok");
    };
    listening = [{ host: "127.0.0.1", port: Number(new URL(api.url).port) }];
    names.clear();
  });

  afterEach(async () => {
    expect(hub.faults).toEqual([]);
    await hub.close();
    await api.close();
    await backend.close();
  });

  const apiPort = (): number => Number(new URL(api.url).port);
  const refusal = async (work: Promise<unknown>): Promise<ServiceError> => {
    const error = await work.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ServiceError);
    expect((error as ServiceError).code).toBe("invalid");
    return error as ServiceError;
  };

  it("refuses a route to the hub's own API when it is created or updated, in every spelling", async () => {
    await start("any");
    const port = apiPort();
    for (const url of [
      `http://127.0.0.1:${port}/secret`,
      `http://localhost:${port}/secret`,
      `http://[::ffff:127.0.0.1]:${port}/secret`,
      `http://0.0.0.0:${port}/secret`,
    ]) {
      const error = await refusal(hub.route({ label: "loop", type: "http", http: { url } }));
      expect(error.subject).toBe("http.url");
      expect(error.message).toContain("would loop back into the hub");
    }
    const proxy = await refusal(
      hub.route({ label: "p", type: "proxy", proxy: { alias: "p", url: `http://127.0.0.1:${port}/v1` } }),
    );
    expect(proxy.subject).toBe("proxy.url");
    const mqtt = await refusal(
      hub.route({ label: "m", type: "mqtt", mqtt: { broker: "127.0.0.1", port, topic: "t" } }),
    );
    expect(mqtt.subject).toBe("mqtt.broker");

    // The user's own backend on loopback is what a local hub's routes are for.
    const route = await hub.route({ label: "mine", type: "http", http: { url: `${backend.url}/in` } });
    await refusal(hub.routing.update(hub.projectUid, route.uid, { http: { url: `${api.url}/secret` } }));
    expect((await hub.routing.get(hub.projectUid, route.uid))!.settings.url).toBe(`${backend.url}/in`);
  });

  it("takes a wildcard bind (0.0.0.0, ::) as every local address, and another port as not the hub", async () => {
    listening = [{ host: "::", port: apiPort() }];
    await start("any");
    await refusal(hub.route({ label: "a", type: "http", http: { url: `http://127.0.0.1:${apiPort()}/x` } }));
    await refusal(hub.route({ label: "b", type: "http", http: { url: `http://[::1]:${apiPort()}/x` } }));
    await refusal(hub.route({ label: "c", type: "http", http: { url: `http://localhost:${apiPort()}/x` } }));
    await hub.route({ label: "d", type: "http", http: { url: `${backend.url}/x` } });
  });

  it("checks again at delivery: a name resolving to the hub, or a hub that listens only later, is refused and logged once", async () => {
    listening = [];
    await start("any");
    names.set("hub.test", [{ address: "127.0.0.1", family: 4 }]);
    const byName = await hub.route({
      label: "by name",
      type: "http",
      http: { url: `http://hub.test:${apiPort()}/secret` },
    });
    const direct = await hub.route({ label: "direct", type: "http", http: { url: `${api.url}/secret` } });
    // The hub listens now (its ports are known only after listen).
    listening = [{ host: "127.0.0.1", port: apiPort() }];
    await hub.event(device, "data.qo", { n: 1 });
    await hub.settle();
    await hub.advance(10 * 60_000); // past every retry delay
    expect(api.received).toEqual([]);
    for (const route of [byName, direct]) {
      const logs = await hub.logs(route.uid);
      expect(logs).toHaveLength(1);
      expect(logs[0]).toMatchObject({ attn: true, status: "refused" });
      expect(logs[0]!.text).toContain("would loop back into the hub");
      expect(logs[0]!.text).not.toContain("secret'");
    }
    expect(hub.routing.pending().size).toBe(0);
  });

  it("connects to the address it checked, sending the name as the Host", async () => {
    await start("any");
    names.set("backend.test", [{ address: "127.0.0.1", family: 4 }]);
    const route = await hub.route({
      label: "named",
      type: "http",
      http: { url: `http://backend.test:${new URL(backend.url).port}/in` },
    });
    await hub.event(device, "data.qo", { n: 1 });
    await hub.settle();
    expect(backend.received.map((r) => [r.url, r.headers.host])).toEqual([
      ["/in", `backend.test:${new URL(backend.url).port}`],
    ]);
    // The same name on the hub's port is the hub's own API: refused at delivery, nothing sent.
    await hub.routing.update(hub.projectUid, route.uid, {
      http: { url: `http://backend.test:${apiPort()}/in` },
    });
    await hub.event(device, "data.qo", { n: 2 });
    await hub.settle();
    expect(api.received).toEqual([]);
    expect((await hub.logs(route.uid)).map((l) => l.status)).toEqual(["200", "refused"]);
  });

  it("public-only refuses loopback targets when created, and at delivery when a name resolves to one", async () => {
    await start("public-only");
    const error = await refusal(hub.route({ label: "lo", type: "http", http: { url: `${backend.url}/in` } }));
    expect(error.message).toContain("127.0.0.1 is a loopback address");
    expect(error.message).toContain("public-only");
    await refusal(
      hub.route({
        label: "lo6",
        type: "http",
        http: { url: `http://[::1]:${new URL(backend.url).port}/in` },
      }),
    );
    await refusal(hub.route({ label: "md", type: "http", http: { url: "http://169.254.169.254/latest/" } }));

    names.set("backend.test", [{ address: "127.0.0.1", family: 4 }]);
    const port = new URL(backend.url).port;
    const route = await hub.route({
      label: "named",
      type: "http",
      http: { url: `http://backend.test:${port}/in` },
    });
    await hub.event(device, "data.qo", { n: 1 });
    await hub.settle();
    await hub.advance(10 * 60_000);
    expect(backend.received).toEqual([]);
    const logs = await hub.logs(route.uid);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toMatchObject({ attn: true, status: "refused", url: `http://backend.test:${port}/in` });
    expect(logs[0]!.text).toBe(
      "not sent: 127.0.0.1 (backend.test resolves to 127.0.0.1) is a loopback address: the hub's route target policy is public-only (cardsim hub --route-targets)",
    );
  });

  it("public-only refuses a proxied web request and an MQTT broker on loopback, logged, not retried", async () => {
    await start("public-only");
    const broker = await MqttBroker.start();
    try {
      names.set("backend.test", [{ address: "127.0.0.1", family: 4 }]);
      names.set("broker.test", [{ address: "::1", family: 6 }]);
      const port = new URL(backend.url).port;
      const proxy = await hub.route({
        label: "p",
        type: "proxy",
        proxy: { alias: "p", url: `http://backend.test:${port}/api` },
      });
      const error = await hub.routing
        .webRequest({
          projectUid: hub.projectUid,
          deviceUid: device.uid,
          alias: "p",
          method: "GET",
          name: "x",
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(error).toBeInstanceOf(WebRequestError);
      expect((error as WebRequestError).code).toBe("unreachable");
      expect((error as WebRequestError).message).toContain("is a loopback address");
      expect((await hub.logs(proxy.uid)).map((l) => [l.status, l.source])).toEqual([
        ["refused", "web proxy"],
      ]);

      const mqtt = await hub.route({
        label: "m",
        type: "mqtt",
        mqtt: { broker: "broker.test", port: broker.port, topic: "t" },
      });
      await hub.event(device, "data.qo", { n: 1 });
      await hub.settle();
      await hub.advance(10 * 60_000);
      expect(broker.published).toEqual([]);
      const logs = await hub.logs(mqtt.uid);
      expect(logs.map((l) => l.status)).toEqual(["refused"]);
      expect(logs[0]!.text).toContain("::1 (broker.test resolves to ::1) is a loopback address");
      expect(backend.received).toEqual([]);
    } finally {
      await broker.close();
    }
  });

  it("a route made under any, on a hub restarted public-only, may still be changed but is refused at delivery", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cardsim-route-targets-"));
    try {
      await start("any", join(dir, "hub.db"));
      const route = await hub.route({ label: "mine", type: "http", http: { url: `${backend.url}/in` } });
      await hub.close();
      await start("public-only", join(dir, "hub.db"));
      await hub.routing.update(hub.projectUid, route.uid, { label: "renamed" });
      await refusal(hub.routing.update(hub.projectUid, route.uid, { http: { url: `${backend.url}/other` } }));
      await hub.event(device, "data.qo", { n: 1 });
      await hub.settle();
      expect(backend.received).toEqual([]);
      expect((await hub.logs(route.uid)).map((l) => l.status)).toEqual(["refused"]);
      await hub.routing.update(hub.projectUid, route.uid, { disabled: true });
    } finally {
      await rm(dir, { recursive: true, force: true }); // (afterEach closes the hub)
    }
  });

  it("policy any delivers to an MQTT broker named by a host name, connecting to the address checked", async () => {
    await start("any");
    const broker = await MqttBroker.start();
    try {
      names.set("broker.test", [{ address: "127.0.0.1", family: 4 }]);
      const route = await hub.route({
        label: "m",
        type: "mqtt",
        mqtt: { broker: "broker.test", port: broker.port, topic: "t" },
      });
      await hub.event(device, "data.qo", { n: 1 });
      await broker.publishedCount(1);
      await hub.settle();
      expect((await hub.logs(route.uid)).map((l) => l.status)).toEqual(["published"]);
    } finally {
      await broker.close();
    }
  });
});
