import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

describe.each([
  ["the legacy webhook-event endpoint", "devices/{D}/webhook-event"],
  ["the external-device event endpoint", "ext-devices/{D}/event"],
])("%s", (_name, path) => {
  let hub: TestHub;
  const url = (device: string, product = hub.productUid) =>
    `/v1/products/${product}/${path.replace("{D}", device)}`;

  beforeAll(async () => {
    hub = await TestHub.start();
  });
  afterAll(async () => {
    await hub.close();
  });

  it("provisions an unknown device and stores the note as its event, with the note's own members", async () => {
    // The note's own members, which the event keeps as given.
    const note = {
      file: "data.qo",
      body: { key: "value" },
      payload: "SGVsbG8sIFdvcmxkIQ==",
      when: 1_700_000_000,
      sn: "pump-7",
      where_lat: 59.9,
      where_lon: 10.7,
    };
    // Members the hub writes itself are not taken from the note.
    const res = await hub.post(url("dev:webhook1"), { ...note, event: "forged", app: "app:elsewhere" });
    expect(res.status).toBe(200);
    const device = (await hub.get(hub.p("/devices/dev:webhook1"))).json;
    expect(device).toMatchObject({ uid: "dev:webhook1", product_uid: hub.productUid });
    const events = (await hub.get(hub.p("/events?deviceUID=dev:webhook1"))).json.events;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      ...note,
      device: "dev:webhook1",
      req: "note.add",
      app: hub.projectUid,
      product: hub.productUid,
    });
    expect(events[0].event).not.toBe("forged");
    // A second event for the same device: no second provisioning, one more event.
    expect((await hub.post(url("dev:webhook1"), { file: "data.qo", body: { n: 2 } })).status).toBe(200);
    expect((await hub.get(hub.p("/events?deviceUID=dev:webhook1"))).json.events).toHaveLength(2);
  });

  it("refuses what is not a device's note, with the field named, and stores nothing", async () => {
    const refused = [
      [{ body: {} }, /file is required/],
      [{ file: "bad name" }, /file is not a notefile name/],
      [{ file: "commands.qi" }, /must name an outbound queue/],
      [{ file: "state.db" }, /must name an outbound queue/],
      [{ file: "data.qo", body: [1] }, /body/],
      [{ file: "data.qo", payload: "***" }, /payload is not base64/],
      [{ file: "data.qo", when: "yesterday" }, /when must be epoch seconds/],
    ] as const;
    for (const [body, text] of refused) {
      const res = await hub.post(url("dev:webhook2"), body);
      expectErrorBody(res, 400);
      expect(res.json.err).toMatch(text);
    }
    expectErrorBody(await hub.post(url("sensor-1"), { file: "data.qo" }), 400);
    expect((await hub.get(hub.p("/devices/dev:webhook2"))).status).toBe(404);
  });

  it("needs the developer role in the product's project", async () => {
    expectErrorBody(await hub.post(url("dev:webhook3"), { file: "data.qo" }, { as: "viewer" }), 403);
    expectErrorBody(await hub.post(url("dev:webhook3"), { file: "data.qo" }, { as: "outsider" }), 403);
    expectErrorBody(await hub.post(url("dev:webhook3"), { file: "data.qo" }, { as: null }), 401);
    expect((await hub.post(url("dev:webhook3"), { file: "data.qo" }, { as: "developer" })).status).toBe(200);
  });
});
