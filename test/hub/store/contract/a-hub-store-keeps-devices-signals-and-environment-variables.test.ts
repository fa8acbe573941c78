import { afterEach, beforeEach, expect, it } from "vitest";
import type { HubStore } from "../../../../hub/store/HubStore.js";
import { newFleet, type DeviceRecord } from "../../../../hub/store/records.js";
import { describeEachBackend } from "./support/backends.js";
import { anEvent, OTHER_PROJECT, PRODUCT, PROJECT, putDevice, seedProject, T0 } from "./support/seed.js";

describeEachBackend("a hub store's devices, signals and environment variables", (backend) => {
  let store: HubStore;

  beforeEach(async () => {
    store = await backend.open();
    await seedProject(store);
    await store.projects.createFleet(
      newFleet({ uid: "fleet:a", projectUid: PROJECT, label: "A", created: T0 }),
    );
  });
  afterEach(() => backend.dispose(store));

  it("merges a write over the stored device whatever record its caller hands over as read", async () => {
    await putDevice(store, 1, { serialNumber: "sn-1" });
    const read = (await store.devices.getDevice("dev:1"))!;
    const first = await store.devices.putDevice(
      { uid: "dev:1", projectUid: PROJECT, productUid: PRODUCT, voltage: 3.1, details: { a: 1 } as never },
      read,
    );
    expect(first).toMatchObject({ serialNumber: "sn-1", voltage: 3.1, details: { a: 1 } });
    // `read` is stale now: the write still merges over what is stored.
    const second = await store.devices.putDevice(
      { uid: "dev:1", projectUid: PROJECT, productUid: PRODUCT, temperature: 20, details: { b: 2 } as never },
      read,
    );
    expect(second).toMatchObject({ voltage: 3.1, temperature: 20, details: { a: 1, b: 2 } });
    // A record written by a transaction that rolled back is not what is stored either.
    let undone: DeviceRecord | undefined;
    await expect(
      store.transaction(async () => {
        undone = await store.devices.putDevice(
          { uid: "dev:1", projectUid: PROJECT, productUid: PRODUCT, voltage: 9, details: { c: 3 } as never },
          second,
        );
        throw new Error("roll back");
      }),
    ).rejects.toThrow("roll back");
    expect(undone).toMatchObject({ voltage: 9 });
    const third = await store.devices.putDevice(
      {
        uid: "dev:1",
        projectUid: PROJECT,
        productUid: PRODUCT,
        lastActivity: T0,
        details: { d: 4 } as never,
      },
      undone,
    );
    expect(third).toMatchObject({ voltage: 3.1, temperature: 20, lastActivity: T0 });
    expect(third.details).toEqual({ a: 1, b: 2, d: 4 });
    expect(await store.devices.getDevice("dev:1")).toEqual(third);
    await expect(
      store.devices.putDevice({ uid: "dev:1", projectUid: OTHER_PROJECT, productUid: PRODUCT }, third),
    ).rejects.toMatchObject({ code: "conflict" });
    // A device deleted since it was read is created again from the write, as without `read`.
    await store.devices.deleteDevice("dev:1", false);
    const again = await store.devices.putDevice(
      { uid: "dev:1", projectUid: PROJECT, productUid: PRODUCT, voltage: 2 },
      third,
    );
    expect(again).toMatchObject({ voltage: 2, serialNumber: null, details: {} });
  });

  it("creates a device, then updates only the fields given, merging its details", async () => {
    const created = await putDevice(store, 1, { serialNumber: "sn-1", tags: ["b", "a", "a"] });
    expect(created).toMatchObject({
      uid: "dev:1",
      projectUid: PROJECT,
      serialNumber: "sn-1",
      tags: ["a", "b"],
      fleetUids: [],
    });
    const updated = await store.devices.putDevice({
      uid: "dev:1",
      projectUid: PROJECT,
      productUid: PRODUCT,
      voltage: 3.7,
      fleetUids: ["fleet:a"],
      details: { sku: "NOTE-X" } as never,
    });
    expect(updated).toMatchObject({
      serialNumber: "sn-1",
      voltage: 3.7,
      fleetUids: ["fleet:a"],
      tags: ["a", "b"],
    });
    await store.devices.putDevice({
      uid: "dev:1",
      projectUid: PROJECT,
      productUid: PRODUCT,
      details: { other: 1 } as never,
    });
    expect((await store.devices.getDevice("dev:1"))?.details).toEqual({ sku: "NOTE-X", other: 1 });
    await expect(
      store.devices.putDevice({ uid: "dev:1", projectUid: OTHER_PROJECT, productUid: PRODUCT }),
    ).rejects.toMatchObject({ code: "conflict" });
    await expect(
      store.devices.putDevice({
        uid: "dev:2",
        projectUid: PROJECT,
        productUid: PRODUCT,
        fleetUids: ["fleet:none"],
      }),
    ).rejects.toMatchObject({ code: "not-found" });
    expect(await store.devices.getDevice("dev:2")).toBeUndefined();
    expect((await store.devices.findBySerial(PROJECT, "sn-1")).map((d) => d.uid)).toEqual(["dev:1"]);
  });

  it("lists a project's devices by UID in pages, through every filter", async () => {
    for (let n = 1; n <= 5; n++) {
      await putDevice(store, n, {
        serialNumber: `sn-${n}`,
        tags: n % 2 ? ["odd"] : ["even"],
        firmwareModule: JSON.stringify({ version: `notecard-8.${n}.1` }),
        firmwareHost: n === 3 ? "host 1.2.3" : null,
        sku: n === 4 ? "NOTE-WIFI" : "NOTE-NBGL",
      });
    }
    await store.devices.addToFleets("dev:2", ["fleet:a"]);
    const page = (filter: object, offset = 0, limit = 10) =>
      store.devices
        .listDevices(PROJECT, filter, { offset, limit })
        .then((r) => [r.items.map((d) => d.uid), r.hasMore]);
    expect(await page({}, 0, 2)).toEqual([["dev:1", "dev:2"], true]);
    expect(await page({}, 4, 2)).toEqual([["dev:5"], false]);
    expect(await page({ tags: ["odd"] })).toEqual([["dev:1", "dev:3", "dev:5"], false]);
    expect(await page({ fleetUids: ["fleet:a"] })).toEqual([["dev:2"], false]);
    expect(await page({ serialNumbers: ["sn-4", "sn-9"] })).toEqual([["dev:4"], false]);
    expect(await page({ skus: ["NOTE-WIFI"] })).toEqual([["dev:4"], false]);
    expect(await page({ hostFirmware: ["1.2"] })).toEqual([["dev:3"], false]);
    expect(await page({ deviceUids: ["dev:5", "dev:1"], tags: ["odd"] })).toEqual([
      ["dev:1", "dev:5"],
      false,
    ]);
    expect(await page({ moduleFirmware: ["not a version"] })).toEqual([[], false]);
    expect(await store.devices.countDevices(PROJECT)).toBe(5);
    expect(await store.devices.countDevices(OTHER_PROJECT)).toBe(0);
  });

  it("joins and leaves fleets of its project only, and lists public keys in pages", async () => {
    await putDevice(store, 1, { publicKey: "key-1" });
    await putDevice(store, 2);
    await putDevice(store, 3, { publicKey: "key-3" });
    expect(await store.devices.addToFleets("dev:1", ["fleet:a", "fleet:a"])).toEqual(["fleet:a"]);
    await expect(store.devices.addToFleets("dev:1", ["fleet:none"])).rejects.toMatchObject({
      code: "not-found",
    });
    await expect(store.devices.addToFleets("dev:none", ["fleet:a"])).rejects.toMatchObject({
      code: "not-found",
    });
    expect(await store.devices.removeFromFleets("dev:1", ["fleet:a"])).toEqual([]);
    const keys = await store.devices.listPublicKeys(PROJECT, { offset: 0, limit: 1 });
    expect(keys).toEqual({ items: [{ uid: "dev:1", key: "key-1" }], hasMore: true });
    expect((await store.devices.listPublicKeys(PROJECT, { offset: 1, limit: 5 })).items).toEqual([
      { uid: "dev:3", key: "key-3" },
    ]);
  });

  it("disables, flags, disconnects every connected device, and keeps the tracker session", async () => {
    await putDevice(store, 1, { connected: true });
    await putDevice(store, 2, { connected: true });
    await putDevice(store, 3);
    await store.devices.setDisabled("dev:1", true);
    await store.devices.setConnectivityAssurance("dev:1", true);
    expect(await store.devices.getDevice("dev:1")).toMatchObject({
      disabled: true,
      connectivityAssurance: true,
    });
    expect(await store.devices.disconnectAll()).toBe(2);
    expect((await store.devices.getDevice("dev:2"))?.connected).toBe(false);
    expect(await store.devices.disconnectAll()).toBe(0);
    expect(await store.devices.trackerSession("dev:1")).toBeUndefined();
    await store.devices.setTrackerSession("dev:1", "session-1");
    expect(await store.devices.trackerSession("dev:1")).toBe("session-1");
  });

  it("queues signals in order until acknowledged, and a deleted device takes them along", async () => {
    await putDevice(store, 1);
    const a = await store.devices.queueSignal("dev:1", { n: 1 }, T0);
    const b = await store.devices.queueSignal("dev:1", { n: 2 }, T0 + 1);
    expect(b.seq).toBeGreaterThan(a.seq);
    expect(await store.devices.pendingSignals("dev:1")).toEqual([a, b]);
    await store.devices.acknowledgeSignals("dev:1", a.seq);
    expect(await store.devices.pendingSignals("dev:1")).toEqual([b]);
    await store.devices.deleteDevice("dev:1", false);
    expect(await store.devices.pendingSignals("dev:1")).toEqual([]);
  });

  it("deletes a device with its variables and notefiles, and purges only its own project's telemetry", async () => {
    await putDevice(store, 1);
    await store.env.set({ kind: "device", uid: "dev:1" }, { a: "1" }, T0);
    await store.notefiles.addNote("dev:1", "data.db", { noteId: "n", body: {}, payload: null }, T0);
    await store.telemetry.addEvent(anEvent("e-here"));
    await store.telemetry.addEvent(anEvent("e-there", { projectUid: OTHER_PROJECT }));
    await store.devices.deleteDevice("dev:1", true);
    expect(await store.devices.getDevice("dev:1")).toBeUndefined();
    expect(await store.env.get({ kind: "device", uid: "dev:1" })).toEqual([]);
    expect(await store.notefiles.listNotefiles("dev:1")).toEqual([]);
    expect(await store.telemetry.getEvent(PROJECT, "e-here")).toBeUndefined();
    expect(await store.telemetry.getEvent(OTHER_PROJECT, "e-there")).toBeDefined();
    await store.devices.deleteDevice("dev:1", true);
  });

  it("sets variables per scope keeping unchanged values' times, deletes one, and lists a project's by level", async () => {
    await putDevice(store, 1);
    await store.env.set({ kind: "project", uid: PROJECT }, { a: "1", b: "2" }, T0);
    const again = await store.env.set({ kind: "project", uid: PROJECT }, { a: "1", b: "3" }, T0 + 5);
    expect(again).toEqual([
      { key: "a", value: "1", modified: T0 },
      { key: "b", value: "3", modified: T0 + 5 },
    ]);
    await store.env.set({ kind: "fleet", uid: "fleet:a" }, { f: "x" }, T0);
    await store.env.set({ kind: "device", uid: "dev:1" }, { d: "y" }, T0);
    await store.env.set({ kind: "device_default", uid: "dev:1" }, { dd: "z" }, T0);
    await expect(store.env.set({ kind: "fleet", uid: "fleet:none" }, { f: "x" }, T0)).rejects.toMatchObject({
      code: "not-found",
    });
    expect(await store.env.delete({ kind: "project", uid: PROJECT }, "a")).toBe(true);
    expect(await store.env.delete({ kind: "project", uid: PROJECT }, "a")).toBe(false);
    const all = await store.env.forProject(PROJECT);
    expect(all.project.map((v) => v.key)).toEqual(["b"]);
    expect([...all.fleets.entries()].map(([k, v]) => [k, v.map((x) => x.key)])).toEqual([["fleet:a", ["f"]]]);
    expect([...all.devices.keys()]).toEqual(["dev:1"]);
    expect(all.defaults.get("dev:1")?.[0]?.value).toBe("z");
  });
});
