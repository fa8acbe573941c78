import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

const TTN = `{"device":body.end_device_ids.dev_eui,"sn":body.end_device_ids.device_id,"body":body.uplink_message.decoded_payload,"details":body}`;

const uplink = {
  end_device_ids: { dev_eui: "70B3D57ED0051234", device_id: "field-sensor-4" },
  uplink_message: { decoded_payload: { temp: 21.5, ok: true } },
};

describe("webhooks", () => {
  let hub: TestHub;
  const hook = (name: string) => hub.p(`/webhooks/${name}`);
  const byProduct = (suffix: string) => `/v1/products/${hub.productUid}/webhooks/${suffix}`;
  const eventsOf = async (device: string) =>
    (await hub.get(hub.p(`/events?deviceUID=${device}`))).json.events as Record<string, unknown>[];

  beforeAll(async () => {
    hub = await TestHub.start();
  });
  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("are created once by name, read, replaced whole, read and replaced by product, and deleted", async () => {
    expect((await hub.get(hub.p("/webhooks"))).json).toEqual({ webhooks: [] });
    // CreateWebhook's example wraps the settings in `settings`.
    const created = await hub.post(hook("ttn"), { settings: { disabled: false, id: "ttn", transform: TTN } });
    expect(created.status).toBe(200);
    expectErrorBody(await hub.post(hook("ttn"), { transform: "" }), 409);
    expect((await hub.get(hook("ttn"))).json).toEqual({ id: "ttn", disabled: false, transform: TTN });
    // UpdateWebhook replaces every setting (what it leaves out is reset) and creates a new name.
    expect((await hub.put(hook("ttn"), { disabled: true })).status).toBe(200);
    expect((await hub.get(hook("ttn"))).json).toEqual({ id: "ttn", disabled: true, transform: "" });
    expect((await hub.put(hook("plain"), {})).status).toBe(200);
    expect((await hub.put(byProduct("ttn/settings"), { transform: TTN })).status).toBe(200);
    expect((await hub.get(byProduct("ttn/settings"))).json).toEqual({
      id: "ttn",
      disabled: false,
      transform: TTN,
    });
    expect((await hub.get(hub.p("/webhooks"))).json.webhooks.map((w: { id: string }) => w.id)).toEqual([
      "plain",
      "ttn",
    ]);
    expectErrorBody(await hub.put(byProduct("nope/settings"), {}), 404);
    expect((await hub.delete(hook("plain"))).status).toBe(200);
    expectErrorBody(await hub.delete(hook("plain")), 404);
    expectErrorBody(await hub.get(hook("plain")), 404);
  });

  it("refuses a transform that is not JSONata, a name it cannot take and an id other than the path's", async () => {
    const bad = await hub.post(hook("broken"), { transform: "{'a': " });
    expectErrorBody(bad, 400);
    expect(bad.json.err).toMatch(/^transform is not a JSONata expression/);
    expectErrorBody(await hub.post(hook("bad%20name"), {}), 400);
    expect((await hub.post(hook("other"), { id: "else" })).json.err).toMatch(/id must be the webhook's name/);
    expectErrorBody(await hub.get(hook("broken")), 404);
  });

  it("store what is posted, shaped by the transform, as an event of the device it names, provisioned if new", async () => {
    expect((await hub.post(byProduct("ttn/event"), uplink)).status).toBe(200);
    const device = (await hub.get(hub.p("/devices/dev:70B3D57ED0051234"))).json;
    expect(device).toMatchObject({ uid: "dev:70B3D57ED0051234", product_uid: hub.productUid });
    const [event] = await eventsOf("dev:70B3D57ED0051234");
    expect(event).toMatchObject({
      file: "webhook.qo",
      req: "note.add",
      sn: "field-sensor-4",
      body: { temp: 21.5, ok: true },
      details: uplink,
      webhook: "ttn",
      app: hub.projectUid,
    });
    // The device path names the device, whatever the transform says.
    expect((await hub.post(byProduct("ttn/devices/dev:abc123/event"), uplink)).status).toBe(200);
    expect(await eventsOf("dev:abc123")).toHaveLength(1);
  });

  it("without a transform make the posted body the event's body, on a device standing for the webhook", async () => {
    await hub.put(hook("raw"), {});
    const posted = { reading: 7, nested: { a: [1, 2] }, gone: null };
    expect((await hub.post(byProduct("raw/event"), posted)).status).toBe(200);
    expect((await hub.post(byProduct("raw/event"), { reading: 8 })).status).toBe(200);
    const events = (await hub.get(hub.p("/events?files=webhook.qo&sortOrder=asc"))).json.events.filter(
      (e: { webhook: string }) => e.webhook === "raw",
    );
    expect(events.map((e: { body: unknown }) => e.body)).toEqual([posted, { reading: 8 }]);
    // Both on one device, the webhook's own.
    expect(new Set(events.map((e: { device: string }) => e.device)).size).toBe(1);
    expect(events[0].device).toMatch(/^dev:webhook[0-9a-f]{16}$/);
  });

  it("refuse events while disabled, for an unknown webhook, and when the transform fails or shapes no note", async () => {
    await hub.put(hook("off"), { disabled: true });
    expect((await hub.post(byProduct("off/event"), uplink)).json.err).toMatch(/webhook off is disabled/);
    expectErrorBody(await hub.post(byProduct("missing/event"), uplink), 404);
    await hub.put(hook("failing"), { transform: "$error('no uplink here')" });
    const failed = await hub.post(byProduct("failing/event"), uplink);
    expectErrorBody(failed, 400);
    expect(failed.json.err).toMatch(
      /webhook failing's transform failed on the posted body: .*no uplink here/,
    );
    await hub.put(hook("wrongfile"), { transform: "{'file': 'state.db', 'body': body}" });
    expect((await hub.post(byProduct("wrongfile/event"), uplink)).json.err).toMatch(
      /must name an outbound queue/,
    );
    // A transform that gives nothing (or calls $doNotRoute()) stores nothing.
    await hub.put(hook("skip"), { transform: "body.nothing" });
    const before = (await hub.get(hub.p("/events"))).json.events.length;
    expect((await hub.post(byProduct("skip/event"), uplink)).status).toBe(200);
    expect((await hub.get(hub.p("/events"))).json.events.length).toBe(before);
  });

  it("need the developer role to post events and change settings, the viewer role to read them", async () => {
    expectErrorBody(await hub.post(byProduct("ttn/event"), uplink, { as: "viewer" }), 403);
    expectErrorBody(await hub.put(hook("ttn"), {}, { as: "viewer" }), 403);
    expect((await hub.get(hook("ttn"), { as: "viewer" })).status).toBe(200);
    expectErrorBody(await hub.get(hook("ttn"), { as: "outsider" }), 403);
  });
});

describe("sessions of devices without a module", () => {
  let hub: TestHub;
  const ext = (device: string, what: string) =>
    `/v1/products/${hub.productUid}/ext-devices/${device}/session/${what}`;
  const sessionsOf = async (device: string) =>
    (await hub.get(hub.p(`/devices/${device}/sessions`))).json.sessions;

  beforeAll(async () => {
    hub = await TestHub.start();
  });
  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("open (closing one still open), close, and keep the typed members given, with session events", async () => {
    const began = Math.floor(hub.clock.now() / 1000);
    expect(
      (await hub.post(ext("dev:lora1", "open"), { rssi: -90, transport: "lorawan", bogus: 1 })).status,
    ).toBe(200);
    expect((await hub.get(hub.p("/devices/dev:lora1"))).json).toMatchObject({ uid: "dev:lora1" });
    await hub.clock.advance(60_000);
    expect((await hub.post(ext("dev:lora1", "open"), { rssi: -80 })).status).toBe(200);
    await hub.clock.advance(60_000);
    expect((await hub.post(ext("dev:lora1", "close"), { voltage: 3.6 })).status).toBe(200);
    // Closing again: nothing is open, nothing changes.
    expect((await hub.post(ext("dev:lora1", "close"), {})).status).toBe(200);
    const sessions = await sessionsOf("dev:lora1");
    expect(sessions).toHaveLength(2);
    const [second, first] = sessions;
    expect(first).toMatchObject({
      rssi: -90,
      transport: "lorawan",
      session_began: began,
      session_ended: began + 60,
    });
    expect(first.bogus).toBeUndefined();
    expect(second).toMatchObject({
      rssi: -80,
      voltage: 3.6,
      session_began: began + 60,
      session_ended: began + 120,
    });
    const events = (await hub.get(hub.p("/events?deviceUID=dev:lora1&files=_session.qo&sortOrder=asc"))).json
      .events;
    expect(events.map((e: { req: string }) => e.req)).toEqual([
      "session.begin",
      "session.end",
      "session.begin",
      "session.end",
    ]);
    const wrong = await hub.post(ext("dev:lora1", "open"), { rssi: "strong" });
    expectErrorBody(wrong, 400);
    expect(wrong.json.err).toMatch(/rssi must be of type integer/);
  });

  it("the legacy webhook session opens one, then adds what it is given to the open one", async () => {
    const url = `/v1/products/${hub.productUid}/devices/dev:hook7/webhook-session`;
    expect((await hub.put(url, { bars: 2 })).status).toBe(200);
    expect((await hub.put(url, { bars: 4, apn: "iot" })).status).toBe(200);
    expect((await hub.put(url)).status).toBe(200);
    const sessions = await sessionsOf("dev:hook7");
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({ bars: 4, apn: "iot" });
    expect(sessions[0].session_ended).toBeUndefined();
  });
});
