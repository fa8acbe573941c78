import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectErrorBody, TestHub } from "./support/hubFixture.js";

describe("devices, fleets and environment variables", () => {
  let hub: TestHub;
  let fleetA: string;
  let fleetB: string;

  beforeAll(async () => {
    hub = await TestHub.start();
    fleetA = (await hub.post(hub.p("/fleets"), { label: "north" })).json.uid;
    fleetB = (await hub.post(hub.p("/fleets"), { label: "south", watchdog_mins: 30 })).json.uid;
    const oslo = {
      whenSec: 1,
      name: "Oslo",
      country: "NO",
      timezone: "Europe/Oslo",
      latitude: 59.9,
      longitude: 10.7,
    };
    const fw = (v: string) =>
      JSON.stringify({
        version: `notecard-${v}`,
        ver_major: +v.split(".")[0]!,
        ver_minor: +v.split(".")[1]!,
        ver_patch: +v.split(".")[2]!,
      });
    for (let i = 0; i < 120; i++) {
      await hub.device({
        serialNumber: `unit-${i}`,
        sku: i % 2 ? "NOTE-WBGLW" : "NOTE-NBGL",
        tags: i % 10 === 0 ? ["ten"] : [],
        fleetUids: i < 30 ? [fleetA] : i < 40 ? [fleetA, fleetB] : [],
        firmwareModule: fw(i < 60 ? "8.1.3" : "7.5.2"),
        firmwareHost: i === 5 ? JSON.stringify({ version: "pump-fw-2.0" }) : null,
        details: i === 7 ? { towerLocation: oslo } : {},
      });
    }
  });

  afterAll(async () => {
    expect(hub.violations).toEqual([]);
    await hub.close();
  });

  it("pages with pageSize 50 by default, has_more exact, pageNum from 1, a documented maximum", async () => {
    const page = async (q: string) => (await hub.get(hub.p(`/devices${q}`))).json;
    expect((await page("")).devices).toHaveLength(50);
    expect((await page("?pageNum=3")).devices).toHaveLength(20);
    expect((await page("?pageNum=3")).has_more).toBe(false);
    expect((await page("?pageNum=2")).has_more).toBe(true);
    expect((await page("?pageSize=120")).has_more).toBe(false);
    expect((await page("?pageSize=119")).has_more).toBe(true);
    expect((await page("?pageNum=9")).devices).toEqual([]);
    for (const q of [
      "?pageNum=0",
      "?pageNum=-1",
      "?pageSize=0",
      "?pageSize=1001",
      "?pageSize=ten",
      "?pageNum=1.5",
    ]) {
      expectErrorBody(await hub.get(hub.p(`/devices${q}`)), 400);
    }
    expect((await page("?pageSize=1000")).devices).toHaveLength(120);
  });

  it("filters by every argument", async () => {
    const uids = async (q: string) =>
      (await hub.get(hub.p(`/devices?pageSize=1000&${q}`))).json.devices.map(
        (d: { serial_number: string }) => d.serial_number,
      );
    expect(await uids("serialNumber=unit-3&serialNumber=unit-4")).toEqual(["unit-3", "unit-4"]);
    expect(await uids("tag=ten")).toHaveLength(12);
    expect(await uids(`fleetUID=${fleetB}`)).toHaveLength(10);
    expect(await uids(`fleetUID=${fleetA}&fleetUID=${fleetB}`)).toHaveLength(40);
    expect(await uids("notecardFirmware=8.1")).toHaveLength(60);
    expect(await uids("moduleFirmware=notecard-7.5.2")).toHaveLength(60);
    expect(await uids("moduleFirmware=8.1.3&moduleFirmware=7")).toHaveLength(120);
    expect(await uids("notecardFirmware=8.10")).toEqual([]);
    expectErrorBody(await hub.get(hub.p("/devices?notecardFirmware=latest")), 400);
    expect(await uids("hostFirmware=pump-fw")).toEqual(["unit-5"]);
    expect(await uids("location=oslo")).toEqual(["unit-7"]);
    expect(await uids("location=NO")).toEqual(["unit-7"]);
    expect(await uids("sku=NOTE-NBGL&tag=ten")).toHaveLength(12);
    expect(await uids(`productUID=${hub.productUid}`)).toHaveLength(120);
    expect(await uids("productUID=product:com.x:y")).toEqual([]);
    const fleetDevices = await hub.get(hub.p(`/fleets/${fleetB}/devices?sku=NOTE-WBGLW`));
    expect(fleetDevices.json.devices).toHaveLength(5);
  });

  it("reads, disables, enables, provisions and deletes devices", async () => {
    const d = (await hub.get(hub.p("/devices/sn:unit-1"))).json;
    expect(d).toMatchObject({
      serial_number: "unit-1",
      product_uid: hub.productUid,
      disabled: false,
      fleet_uids: [fleetA],
    });
    await hub.post(hub.p(`/devices/${d.uid}/disable`));
    expect((await hub.get(hub.p(`/devices/${d.uid}`))).json.disabled).toBe(true);
    await hub.post(hub.p(`/devices/${d.uid}/enable`));
    expect((await hub.get(hub.p(`/devices/${d.uid}`))).json.disabled).toBe(false);

    const prov = await hub.post(hub.p("/devices/dev:555000111/provision"), {
      product_uid: hub.productUid,
      device_sn: "fresh",
      fleet_uids: [fleetB],
    });
    expect(prov.json).toEqual({});
    expect((await hub.get(hub.p("/devices/dev:555000111"))).json).toMatchObject({
      serial_number: "fresh",
      fleet_uids: [fleetB],
    });
    expectErrorBody(await hub.post(hub.p("/devices/dev:555000112/provision"), {}), 400);
    expectErrorBody(
      await hub.post(hub.p("/devices/dev:555000112/provision"), { product_uid: hub.otherProductUid }),
      400,
    );
    await hub.store.devices.putDevice({
      uid: "dev:555000111",
      projectUid: hub.projectUid,
      productUid: hub.productUid,
      lastActivity: hub.clock.now(),
    });
    expectErrorBody(
      await hub.post(hub.p("/devices/dev:555000111/provision"), { product_uid: hub.productUid }),
      409,
    );
    expect((await hub.delete(hub.p("/devices/dev:555000111"))).status).toBe(204);
    expectErrorBody(await hub.get(hub.p("/devices/dev:555000111")), 404);
  });

  it("resolves environment variables device > fleet > project > env.default and shows the hierarchy", async () => {
    const dev = (await hub.get(hub.p("/devices/sn:unit-35"))).json.uid as string;
    await hub.put(hub.p("/environment_variables"), {
      environment_variables: { rate: "60", mode: "eco", color: "red" },
    });
    await hub.put(hub.p(`/fleets/${fleetA}/environment_variables`), {
      environment_variables: { rate: "30" },
    });
    await hub.clock.advance(1000);
    await hub.put(hub.p(`/fleets/${fleetB}/environment_variables`), {
      environment_variables: { rate: "15", mode: "fast" },
    });
    await hub.put(hub.p(`/devices/${dev}/environment_variables`), { environment_variables: { mode: "off" } });
    await hub.store.env.set(
      { kind: "device_default", uid: dev },
      { color: "blue", size: "L" },
      hub.clock.now(),
    );
    const env = (await hub.get(hub.p(`/devices/${dev}/environment_variables`))).json;
    expect(env).toEqual({
      environment_variables: { mode: "off" },
      environment_variables_env_default: { color: "blue", size: "L" },
      // rate: fleet B changed last among the device's fleets; color: project beats env.default.
      environment_variables_effective: { color: "red", mode: "off", rate: "15", size: "L" },
    });
    const tree = (await hub.get(hub.p(`/devices/${dev}/environment_hierarchy`))).json;
    expect(tree.type).toBe("app");
    expect(tree.children.map((c: { fleet_uid: string }) => c.fleet_uid).sort()).toEqual(
      [fleetA, fleetB].sort(),
    );
    const a = tree.children.find((c: { fleet_uid: string }) => c.fleet_uid === fleetA);
    expect(a.variables).toEqual([{ key: "rate", value: "30", precedence: 2, used: false }]);
    expect(a.children[0]).toMatchObject({ type: "device", device_uid: dev, var_count: 1 });
    expect(tree.variables.find((v: { key: string }) => v.key === "color")).toMatchObject({
      used: true,
      precedence: 3,
    });
    const left = await hub.delete(hub.p(`/environment_variables/color`));
    expect(left.json.environment_variables).toEqual({ mode: "eco", rate: "60" });
    expectErrorBody(await hub.delete(hub.p(`/environment_variables/color`)), 404);
    expectErrorBody(await hub.put(hub.p("/environment_variables"), { environment_variables: { n: 1 } }), 400);
    expectErrorBody(await hub.put(hub.p("/environment_variables"), { vars: {} }), 400);
    const project = (await hub.get(hub.p("/environment_hierarchy"))).json;
    expect(project.children.filter((c: { type: string }) => c.type === "device")).toHaveLength(80);
  });

  it("creates, updates (with membership), lists and deletes fleets", async () => {
    const made = await hub.post(hub.p("/fleets"), {
      label: "temp",
      smart_rule: "1",
      connectivity_assurance: { enabled: true },
    });
    expect(made.status).toBe(201);
    expect(made.json).toMatchObject({
      label: "temp",
      smart_rule: "1",
      connectivity_assurance: { enabled: true },
    });
    const dev = (await hub.get(hub.p("/devices/sn:unit-100"))).json.uid;
    const updated = await hub.put(hub.p(`/fleets/${made.json.uid}`), { label: "kept", addDevices: [dev] });
    expect(updated.json.label).toBe("kept");
    expect(
      (await hub.get(hub.p(`/devices/${dev}/fleets`))).json.fleets.map((f: { uid: string }) => f.uid),
    ).toEqual([made.json.uid]);
    await hub.put(hub.p(`/fleets/${made.json.uid}`), { removeDevices: [dev] });
    expect((await hub.get(hub.p(`/devices/${dev}`))).json.fleet_uids).toEqual([]);
    expectErrorBody(await hub.post(hub.p("/fleets"), {}), 400);
    expectErrorBody(await hub.put(hub.p(`/fleets/${made.json.uid}`), { addDevices: ["dev:42"] }), 404);
    expect((await hub.delete(hub.p(`/fleets/${made.json.uid}`))).status).toBe(204);
    expectErrorBody(await hub.get(hub.p(`/fleets/${made.json.uid}`)), 404);
    expect(
      (await hub.get(hub.p("/fleets"))).json.fleets.map((f: { label: string }) => f.label).sort(),
    ).toEqual(["north", "south"]);
  });

  it("queues signals, reports sessions, health log, plans and public keys", async () => {
    const dev = (
      await hub.device({
        publicKey: "PEM",
        details: { cellularPlans: [{ iccid: "8901", plan_type: "500MB" }] },
      })
    ).uid;
    expect((await hub.post(hub.p(`/devices/${dev}/signal`), { body: { go: 1 } })).json).toEqual({
      connected: false,
    });
    expectErrorBody(await hub.post(hub.p(`/devices/${dev}/signal`), { nobody: 1 }), 400);
    for (let i = 0; i < 3; i++) {
      await hub.store.telemetry.addSession({
        uid: `0000000${i}-0000-4000-8000-000000000000`,
        deviceUid: dev,
        projectUid: hub.projectUid,
        beganSec: 1_767_300_000 + i * 3600,
        endedSec: null,
        firstSync: i === 0,
        data: { bars: i },
      });
    }
    const sessions = (await hub.get(hub.p(`/devices/${dev}/sessions?pageSize=2`))).json;
    expect(sessions.sessions.map((s: { bars: number }) => s.bars)).toEqual([2, 1]);
    expect(sessions.has_more).toBe(true);
    expect((await hub.get(hub.p(`/devices/${dev}/sessions?firstSync=true`))).json.sessions).toHaveLength(1);
    expect(
      (await hub.get(hub.p(`/devices/${dev}/sessions?startDate=1767303000`))).json.sessions,
    ).toHaveLength(2);
    await hub.store.telemetry.addHealthLog({
      projectUid: hub.projectUid,
      deviceUid: dev,
      whenSec: 1_767_300_000,
      alert: false,
      text: "boot",
      type: "boot",
    });
    await hub.store.telemetry.addHealthLog({
      projectUid: hub.projectUid,
      deviceUid: dev,
      whenSec: 1_767_300_100,
      alert: true,
      text: "dfu",
      type: "dfu_completed",
    });
    const log = (await hub.get(hub.p(`/devices/${dev}/health-log?log_type=boot`))).json;
    expect(log.health_log).toEqual([{ when: "2026-01-01T20:40:00Z", alert: false, text: "boot" }]);
    expectErrorBody(await hub.get(hub.p(`/devices/${dev}/health-log?log_type=nap`)), 400);
    expect((await hub.get(hub.p(`/devices/${dev}/plans`))).json.cellular_plans).toEqual([
      { iccid: "8901", plan_type: "500MB" },
    ]);
    expect((await hub.get(hub.p(`/devices/${dev}/public-key`))).json).toEqual({ uid: dev, key: "PEM" });
    expectErrorBody(await hub.get(hub.p("/devices/sn:unit-1/public-key")), 404);
    expect((await hub.get(hub.p("/devices/public-keys"))).json).toEqual({
      device_public_keys: [{ uid: dev, key: "PEM" }],
      has_more: false,
    });
  });
});
