import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { TestHub } from "../support/hubFixture.js";

/* eslint-disable @typescript-eslint/no-explicit-any */

/**
 * Monitors evaluated on the hub's (fake) clock against the events the hub stores: alerts raised
 * when the condition holds, once per window, cleared when it no longer does, notifications
 * recorded unless silenced or within the cooldown. Every response is checked against the
 * definition (hubFixture).
 */
describe("a monitor on the hub clock", () => {
  let hub: TestHub;
  let device: string;
  let other: string;

  beforeEach(async () => {
    hub = await TestHub.start();
    device = (await hub.device()).uid;
    other = (await hub.device()).uid;
  });

  afterEach(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  const create = async (fields: Record<string, unknown>): Promise<string> => {
    const res = await hub.request("POST", `/v1/projects/${hub.projectUid}/monitors`, {
      as: "developer",
      body: {
        name: "Too hot",
        description: "the pump runs hot",
        source_type: "event",
        source_selector: "body.temp",
        condition_type: "greater_than",
        threshold: 30,
        alert_routes: [
          { email: "ops@example.com" },
          { url: "http://127.0.0.1:9/slack", message_type: "text" },
        ],
        ...fields,
      },
    });
    expect(res.status, res.text).toBe(201);
    return res.json.uid as string;
  };

  const event = async (temp: number, from = device, file = "data.qo"): Promise<void> => {
    await hub.services.events.record({
      projectUid: hub.projectUid,
      deviceUid: from,
      file,
      data: { body: { temp } },
    });
    await hub.services.monitors.idle();
  };

  const advance = async (ms: number): Promise<void> => {
    await hub.clock.advance(ms);
    await hub.services.monitors.idle();
  };

  const alerts = async (query = ""): Promise<any[]> => {
    const res = await hub.request("GET", `/v1/projects/${hub.projectUid}/alerts${query}`, { as: "viewer" });
    expect(res.status, res.text).toBe(200);
    return (res.json.alerts as any[]).reverse();
  };

  it("without an aggregate judges each value per device: fires, stays quiet while in alert, clears", async () => {
    const uid = await create({});
    await event(25);
    expect(await alerts()).toEqual([]);
    await event(35);
    await event(40);
    await event(50, other);
    const raised = await alerts();
    expect(raised).toHaveLength(2);
    expect(raised[0]).toMatchObject({
      monitor_uid: uid,
      monitor_name: "Too hot",
      device_uid: device,
      value: 35,
      resolved: false,
      version: 1,
      field_name: "body.temp",
      notifications: [
        { notification_type: "email", recipients: "ops@example.com", status: 200 },
        { notification_type: "slack", recipients: "http://127.0.0.1:9/slack", status: 200 },
      ],
    });
    expect(raised[1]).toMatchObject({ device_uid: other, value: 50, resolved: false });
    const during = await hub.request("GET", `/v1/projects/${hub.projectUid}/monitors/${uid}`, {
      as: "viewer",
    });
    expect(during.json).toMatchObject({
      alert: true,
      last_routed_at: new Date(hub.clock.now()).toISOString(),
    });

    await event(20);
    const after = await alerts(`?monitorUID=${uid}`);
    expect(after[0]).toMatchObject({ device_uid: device, resolved: true, version: 2 });
    expect(after[0].data.map((d: any) => d.value)).toEqual([35, 20]);
    expect(after[1]).toMatchObject({ device_uid: other, resolved: false });
    await event(10, other);
    const done = await hub.request("GET", `/v1/projects/${hub.projectUid}/monitors/${uid}`, { as: "viewer" });
    expect(done.json.alert).toBe(false);
  });

  it("with an aggregate fires once per window, keeps the alert while windows meet it, and clears after one that does not", async () => {
    await create({ aggregate_function: "max", aggregate_window: "1m", per_device: false });
    await event(31);
    await advance(10_000);
    await event(35, other);
    await event(40);
    expect(await alerts()).toHaveLength(1);
    expect((await alerts())[0]).toMatchObject({ value: 31, resolved: false });
    expect((await alerts())[0].device_uid).toBeUndefined();

    await advance(50_000); // the window ends having met the condition: still in alert
    expect((await alerts())[0].resolved).toBe(false);
    await event(12); // the next window's max is 12
    await advance(60_000);
    const cleared = await alerts();
    expect(cleared).toHaveLength(1);
    expect(cleared[0]).toMatchObject({ resolved: true, version: 2 });

    await event(33); // a new window: a new alert
    expect((await alerts()).map((a) => a.resolved)).toEqual([true, false]);
  });

  it("clears an alert when the device falls silent for a whole window", async () => {
    await create({ aggregate_function: "average", aggregate_window: "30s" });
    await event(40);
    await event(50);
    expect(await alerts()).toHaveLength(1);
    await advance(30_000); // met (average 45): stays open
    expect((await alerts())[0].resolved).toBe(false);
    await advance(30_000); // a window without values: nothing meets the condition
    expect((await alerts())[0]).toMatchObject({ resolved: true, version: 2 });
  });

  it("leaves notifications out within the routing cooldown, and sends them again after it", async () => {
    const uid = await create({ routing_cooldown_period: "10m" });
    await event(35); // fires, notified
    await event(20); // clears within the cooldown: no notification
    await advance(60_000);
    await event(36); // fires again within the cooldown: recorded, not notified
    await advance(10 * 60_000);
    await event(10); // clears after the cooldown: notified
    const all = await alerts(`?monitorUID=${uid}`);
    expect(all.map((a) => a.notifications.length)).toEqual([2, 2]);
    expect(all.map((a) => a.resolved)).toEqual([true, true]);
    expect(all[1].created_at - all[0].created_at).toBe(60);
  });

  it("counts events in a window, records no notification while silenced, and keeps to its notefiles and fleets", async () => {
    const made = await hub.request("POST", `/v1/projects/${hub.projectUid}/fleets`, {
      as: "developer",
      body: { label: "Pumps" },
    });
    const fleet = made.json.uid as string;
    await hub.store.devices.addToFleets(device, [fleet]);
    await create({
      source_selector: "",
      condition_type: "count",
      threshold: 3,
      aggregate_window: "5m",
      notefile_filter: ["pump.qo"],
      fleet_filter: [fleet],
      silenced: true,
    });
    await event(1, device, "pump.qo");
    await event(1, device, "data.qo"); // another notefile
    await event(1, other, "pump.qo"); // a device outside the fleet
    await event(1, device, "pump.qo");
    expect(await alerts()).toEqual([]);
    await event(1, device, "pump.qo");
    const raised = await alerts();
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ value: 3, notifications: [] });
  });

  it("is not evaluated while disabled, and refuses settings it could not evaluate", async () => {
    const uid = await create({ disabled: true });
    await event(99);
    expect(await alerts()).toEqual([]);
    const P = `/v1/projects/${hub.projectUid}/monitors`;
    const noWindow = await hub.request("PUT", `${P}/${uid}`, {
      as: "developer",
      body: { aggregate_function: "sum" },
    });
    expect(noWindow.status).toBe(400);
    expect(noWindow.json.err).toMatch(/aggregate_window is required/);
    const badWindow = await hub.request("PUT", `${P}/${uid}`, {
      as: "developer",
      body: { aggregate_window: "5h30m" },
    });
    expect(badWindow.json.err).toMatch(/aggregate_window must be a number and a unit/);
    const enabled = await hub.request("PUT", `${P}/${uid}`, { as: "developer", body: { disabled: false } });
    expect(enabled.json).toMatchObject({ uid, disabled: false, alert: false, threshold: 30 });
    await event(99);
    expect(await alerts()).toHaveLength(1);
    const deleted = await hub.request("DELETE", `${P}/${uid}`, { as: "developer" });
    expect(deleted.json.uid).toBe(uid);
    expect((await hub.request("GET", `${P}/${uid}`, { as: "viewer" })).status).toBe(404);
    expect(await alerts()).toHaveLength(1); // the alerts stay
  });
});
