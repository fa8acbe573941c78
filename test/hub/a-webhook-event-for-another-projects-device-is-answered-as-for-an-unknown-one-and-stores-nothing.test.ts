import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody, TestHub, type HubResponse } from "./support/hubFixture.js";

/**
 * What a caller can compare of two answers: status, body and headers (but the date), with the
 * DeviceUID asked about (errors echo the request's path) and the length that follows from it made
 * alike.
 */
const seen = (res: HubResponse, uid: string) => {
  const { date: _date, "content-length": _length, ...headers } = res.headers;
  return { status: res.status, text: res.text.replaceAll(uid, "{D}"), headers };
};

describe.each([
  ["the legacy webhook-event endpoint", "devices/{D}/webhook-event"],
  ["the external-device event endpoint", "ext-devices/{D}/event"],
])("%s, for a DeviceUID of another project", (_name, path) => {
  let hub: TestHub;
  const url = (device: string) => `/v1/products/${hub.productUid}/${path.replace("{D}", device)}`;
  const theirs = "dev:864475040000001";

  beforeAll(async () => {
    hub = await TestHub.start();
    await hub.store.devices.putDevice({
      uid: theirs,
      projectUid: hub.otherProjectUid,
      productUid: hub.otherProductUid,
      provisioned: hub.clock.now(),
      serialNumber: "their-pump",
    });
  });
  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("answers exactly as for an unknown device, and neither stores the event nor moves the device", async () => {
    const note = { file: "data.qo", body: { temp: 21.5 }, when: 1_700_000_000 };
    const unknown = await hub.post(url("dev:864475040000002"), note, { as: "developer" });
    const elsewhere = await hub.post(url(theirs), note, { as: "developer" });
    expect(unknown.status).toBe(200);
    expect(seen(elsewhere, theirs)).toEqual(seen(unknown, "dev:864475040000002"));

    // Their device stays theirs, as it was, with no event in either project.
    const device = await hub.store.devices.getDevice(theirs);
    expect(device).toMatchObject({
      uid: theirs,
      projectUid: hub.otherProjectUid,
      productUid: hub.otherProductUid,
      serialNumber: "their-pump",
    });
    const theirEvents = await hub.get(`/v1/projects/${hub.otherProjectUid}/events?deviceUID=${theirs}`, {
      as: "outsider",
    });
    expect(theirEvents.status).toBe(200);
    expect(theirEvents.json.events ?? []).toEqual([]);
    expect((await hub.get(hub.p(`/events?deviceUID=${theirs}`))).json.events ?? []).toEqual([]);
    expectErrorBody(await hub.get(hub.p(`/devices/${theirs}`)), 404);
  });

  it("answers alike when the UID is provisioned into the other project between its look and its own", async () => {
    // The first look finds nothing (the other project provisions the UID right after it).
    const store = hub.store.devices;
    const getDevice = store.getDevice.bind(store);
    let looks = 0;
    store.getDevice = (uid: string) =>
      uid === theirs && looks++ === 0 ? Promise.resolve(undefined) : getDevice(uid);
    try {
      const res = await hub.post(url(theirs), { file: "data.qo" }, { as: "developer" });
      expect(looks).toBeGreaterThan(1);
      expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: "{}" });
    } finally {
      store.getDevice = getDevice;
    }
    expect(await hub.store.devices.getDevice(theirs)).toMatchObject({ projectUid: hub.otherProjectUid });
    expect((await hub.get(hub.p(`/events?deviceUID=${theirs}`))).json.events ?? []).toEqual([]);
  });

  it("refuses a malformed note in the same words as for an unknown device", async () => {
    for (const body of [{ body: {} }, { file: "commands.qi" }, { file: "data.qo", payload: "***" }]) {
      const unknown = await hub.post(url("dev:864475040000003"), body, { as: "developer" });
      expectErrorBody(unknown, 400);
      const elsewhere = await hub.post(url(theirs), body, { as: "developer" });
      expect(seen(elsewhere, theirs)).toEqual(seen(unknown, "dev:864475040000003"));
    }
  });
});
