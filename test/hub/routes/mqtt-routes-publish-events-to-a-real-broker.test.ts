import { connectAsync } from "mqtt";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { eventDocument } from "../../../hub/events/eventDocument.js";
import type { DeviceRecord } from "../../../hub/store/records.js";
import { RoutingHub } from "./support/routingFixture.js";
import { closedPort, MqttBroker } from "./support/servers.js";

/**
 * MQTT routes publish with the `mqtt` client library (QoS 1) to a real broker, aedes, started by
 * the test on loopback; the hub runs in process on a fake clock.
 */
describe("MQTT routes (fake clock, in process, aedes on loopback)", () => {
  let hub: RoutingHub;
  let broker: MqttBroker;
  let device: DeviceRecord;

  beforeEach(async () => {
    hub = await RoutingHub.start();
    device = await hub.device();
  });

  afterEach(async () => {
    expect(hub.faults).toEqual([]);
    await hub.close();
    await broker?.close();
  });

  it("publishes each event to the route's topic, transformed, and a subscriber receives it", async () => {
    broker = await MqttBroker.start();
    const subscriber = await connectAsync(broker.url);
    const heard: { topic: string; json: unknown }[] = [];
    const allHeard = new Promise<void>((resolve) => {
      subscriber.on("message", (topic, payload) => {
        heard.push({ topic, json: JSON.parse(payload.toString("utf8")) });
        if (heard.length === 4) resolve();
      });
    });
    await subscriber.subscribeAsync("cardsim/#", { qos: 1 });

    const whole = await hub.route({
      label: "events",
      type: "mqtt",
      mqtt: {
        broker: "127.0.0.1",
        port: String(broker.port),
        topic: "cardsim/events",
        client_id: "hub-events",
      },
    });
    const bodies = await hub.route({
      label: "bodies",
      type: "mqtt",
      mqtt: { broker: broker.url, topic: "cardsim/bodies", transform: { format: "body" } },
    });
    const first = await hub.event(device, "data.qo", { temp: 21 });
    const second = await hub.event(device, "data.qo", { temp: 22 });
    await hub.settle();
    await broker.publishedCount(4);

    const to = (topic: string) => broker.published.filter((p) => p.topic === topic);
    expect(to("cardsim/events").map((p) => JSON.parse(p.payload.toString("utf8")))).toEqual([
      eventDocument(first),
      eventDocument(second),
    ]);
    expect(to("cardsim/events").every((p) => p.qos === 1 && p.clientId === "hub-events")).toBe(true);
    expect(to("cardsim/bodies").map((p) => JSON.parse(p.payload.toString("utf8")))).toEqual([
      { temp: 21 },
      { temp: 22 },
    ]);
    await allHeard;
    expect(heard.filter((h) => h.topic === "cardsim/bodies").map((h) => h.json)).toEqual([
      { temp: 21 },
      { temp: 22 },
    ]);
    await subscriber.endAsync();

    expect((await hub.logs(whole.uid)).map((l) => [l.status, l.attn, l.url])).toEqual([
      ["published", false, `mqtt://127.0.0.1:${broker.port}/cardsim/events`],
      ["published", false, `mqtt://127.0.0.1:${broker.port}/cardsim/events`],
    ]);
    expect(await hub.logs(bodies.uid)).toHaveLength(2);
  });

  it("logs a broker that cannot be reached or refuses the credentials, and retries it", async () => {
    broker = await MqttBroker.start({
      authenticate: (user, password) => user === "hub" && password === "right",
    });
    const port = await closedPort();
    const nowhere = await hub.route({
      label: "nowhere",
      type: "mqtt",
      mqtt: { broker: "127.0.0.1", port: String(port), topic: "t" },
    });
    const refused = await hub.route({
      label: "refused",
      type: "mqtt",
      mqtt: { broker: broker.url, topic: "t", username: "hub", password: "wrong" },
    });
    await hub.event(device, "data.qo", { n: 1 });
    await hub.settle();
    const [nowhereLog] = await hub.logs(nowhere.uid);
    expect(nowhereLog).toMatchObject({ attn: true, status: "connection failed" });
    expect(nowhereLog!.text).toMatch(/ECONNREFUSED/);
    const [refusedLog] = await hub.logs(refused.uid);
    expect(refusedLog).toMatchObject({ attn: true, status: "connection failed" });
    expect(refusedLog!.text).toMatch(/Not authorized|Bad username or password/i);
    expect(broker.published).toHaveLength(0);

    // Corrected while the retry waits: the retry connects with the new password.
    await hub.routing.update(hub.projectUid, refused.uid, { mqtt: { password: "right" } });
    await hub.advance(60_000);
    expect((await hub.logs(refused.uid)).map((l) => [l.status, l.source])).toEqual([
      ["connection failed", "routing"],
      ["published", "retry"],
    ]);
    expect(broker.published.map((p) => p.topic)).toEqual(["t"]);
    expect((await hub.logs(nowhere.uid)).map((l) => l.source)).toEqual(["routing", "retry"]);
  });

  it("reconnects after the broker went away and came back", async () => {
    broker = await MqttBroker.start();
    const port = broker.port;
    const route = await hub.route({
      label: "b",
      type: "mqtt",
      mqtt: { broker: "127.0.0.1", port: String(port), topic: "t" },
    });
    await hub.event(device, "data.qo", { n: 1 });
    await hub.settle();
    await broker.close();
    // The route's open connection notices the broker is gone; the next event fails and is retried.
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    await hub.event(device, "data.qo", { n: 2 });
    await hub.settle();
    expect((await hub.logs(route.uid)).map((l) => l.status)).toEqual(["published", "connection failed"]);
    broker = await MqttBroker.start({ port });
    await hub.advance(60_000);
    expect((await hub.logs(route.uid)).map((l) => l.status)).toEqual([
      "published",
      "connection failed",
      "published",
    ]);
    expect(broker.published.map((p) => JSON.parse(p.payload.toString("utf8")).body)).toEqual([{ n: 2 }]);
  });
});
