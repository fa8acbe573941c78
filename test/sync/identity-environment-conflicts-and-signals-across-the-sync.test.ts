import { afterEach, describe, expect, it } from "vitest";
import { CARD_KEYS } from "../../firmware/config/CardSettings.js";
import { SyncWorld, TRANSPORTS } from "./support/syncWorld.js";

describe.each(TRANSPORTS)("over %s", (transport) => {
  let world: SyncWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("a database note changed on both ends settles on one version and keeps the other as a conflict", async () => {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.req(sim, { req: "note.add", file: "config.db", note: "mode", body: { mode: "eco" } });
    await world.sync(sim);
    const device = await world.device(sim);
    // Both ends change the note before they sync again; the module changes it twice (more updates).
    await world.services.notes.update(device, "config.db", "mode", { body: { mode: "hub" }, payload: null });
    await world.clock.advance(1000);
    await world.req(sim, { req: "note.update", file: "config.db", note: "mode", body: { mode: "m1" } });
    await world.req(sim, { req: "note.update", file: "config.db", note: "mode", body: { mode: "m2" } });
    await world.sync(sim);
    await world.sync(sim);
    const atHub = await world.services.store.notefiles.getNote(device.uid, "config.db", "mode");
    expect(atHub?.body).toEqual({ mode: "m2" });
    expect(atHub?.conflicts?.map((c) => c.body)).toEqual([{ mode: "hub" }]);
    expect(await world.req(sim, { req: "note.get", file: "config.db", note: "mode" })).toMatchObject({
      body: { mode: "m2" },
    });
    // A later change at the hub wins again everywhere.
    await world.services.notes.update(device, "config.db", "mode", {
      body: { mode: "final" },
      payload: null,
    });
    await world.sync(sim);
    expect(await world.req(sim, { req: "note.get", file: "config.db", note: "mode" })).toMatchObject({
      body: { mode: "final" },
    });
  });

  it("a deleted database note stays a tombstone until the hub has seen it, then goes on both ends", async () => {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.req(sim, { req: "note.add", file: "config.db", note: "old", body: { v: 1 } });
    await world.sync(sim);
    await world.req(sim, { req: "note.delete", file: "config.db", note: "old" });
    expect(sim.module.notebox.file("config.db")!.tombstones).toBe(1);
    await world.sync(sim);
    expect(sim.module.notebox.file("config.db")!.tombstones).toBe(0);
    const device = await world.device(sim);
    const stored = await world.services.store.notefiles.getNote(device.uid, "config.db", "old");
    expect(stored === undefined || stored.deleted).toBe(true);
    const events = await world.events(sim);
    expect(events.map((e) => e.data["req"])).toEqual(["note.add", "note.delete"]);
  });

  it("a module that lost its key is refused, and says so in hub.status and hub.sync.status", async () => {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.sync(sim);
    // The flash lost the key record: the module makes a new key pair at its next boot.
    await sim.module.exclusive(() => sim.module.notebox.setConfig(CARD_KEYS.key, undefined));
    await sim.powerCycle();
    const status = await world.sync(sim);
    expect(status).toMatchObject({ alert: true });
    expect(String(status["status"])).toMatch(/\{auth\}/);
    expect(String((await world.req(sim, { req: "hub.status" }))["status"])).toMatch(/\{auth\}/);
    // The hub serves the key it holds: the first one.
    const key = await world.services.store.devices.getDevice(sim.module.deviceUid);
    expect(key?.publicKey).toMatch(/BEGIN PUBLIC KEY/);
  });

  it("a disabled device is refused until it is enabled again", async () => {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.sync(sim);
    await world.services.store.devices.setDisabled(sim.module.deviceUid, true);
    await world.req(sim, { req: "note.add", file: "sensors.qo", body: { n: 1 } });
    const refused = await world.sync(sim);
    expect(String(refused["status"])).toMatch(/\{device-disabled\}/);
    expect(await world.events(sim)).toEqual([]);
    await world.services.store.devices.setDisabled(sim.module.deviceUid, false);
    expect(await world.sync(sim)).toMatchObject({ status: "completed {sync-end}" });
    expect((await world.events(sim)).map((e) => e.data["body"])).toEqual([{ n: 1 }]);
  });

  it("env.get resolves local, device, fleet, project and default values, and env.modified moves", async () => {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.req(sim, { req: "env.default", name: "rate", text: "default" });
    await world.req(sim, { req: "env.default", name: "only_default", text: "d" });
    await world.sync(sim);
    const device = await world.device(sim);
    const fleet = `fleet:${"0".repeat(8)}-0000-0000-0000-000000000001`;
    await world.services.store.projects.createFleet({
      uid: fleet,
      projectUid: world.projectUid,
      label: "all",
      created: world.clock.now(),
      smartRule: null,
      smartRuleEnabled: false,
      watchdogMins: 0,
      connectivityAssurance: null,
    });
    await world.services.store.devices.addToFleets(device.uid, [fleet]);
    const now = world.clock.now();
    await world.services.store.env.set(
      { kind: "project", uid: world.projectUid },
      { rate: "project", p: "1" },
      now,
    );
    await world.services.store.env.set({ kind: "fleet", uid: fleet }, { rate: "fleet", f: "1" }, now);
    await world.services.store.env.set({ kind: "device", uid: device.uid }, { rate: "device" }, now);
    const before = (await world.req(sim, { req: "env.modified" }))["time"] as number;
    await world.clock.advance(5000);
    await world.sync(sim);
    expect((await world.req(sim, { req: "env.modified" }))["time"]).toBeGreaterThan(before);
    expect((await world.req(sim, { req: "env.get", name: "rate" }))["text"]).toBe("device");
    expect((await world.req(sim, { req: "env.get", name: "f" }))["text"]).toBe("1");
    expect((await world.req(sim, { req: "env.get", name: "p" }))["text"]).toBe("1");
    expect((await world.req(sim, { req: "env.get", name: "only_default" }))["text"]).toBe("d");
    await world.req(sim, { req: "env.set", name: "rate", text: "local" });
    expect((await world.req(sim, { req: "env.get", name: "rate" }))["text"]).toBe("local");
    // The module's defaults went up to the hub.
    const defaults = await world.services.store.env.get({ kind: "device_default", uid: device.uid });
    expect(Object.fromEntries(defaults.map((d) => [d.key, d.value]))).toMatchObject({
      rate: "default",
      only_default: "d",
    });
  });

  it("signals wait for the next sync, then hub.signal hands them out oldest first", async () => {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.sync(sim);
    const device = await world.device(sim);
    await world.services.devices.signal(device, { n: 1 });
    await world.services.devices.signal(device, { n: 2 });
    expect(await world.req(sim, { req: "hub.signal" })).toEqual({});
    await world.sync(sim);
    expect(await world.req(sim, { req: "hub.signal" })).toMatchObject({ body: { n: 1 }, signals: 1 });
    expect(await world.req(sim, { req: "hub.signal" })).toMatchObject({ body: { n: 2 } });
    await world.sync(sim);
    expect(await world.req(sim, { req: "hub.signal" })).toEqual({});
  });

  it("a module in continuous mode holds its session open, and a signal reaches it at once", async () => {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.req(sim, { req: "hub.set", mode: "continuous" });
    await world.sync(sim);
    expect(await world.req(sim, { req: "hub.status" })).toMatchObject({ connected: true });
    expect((await world.device(sim)).connected).toBe(true);
    await world.services.devices.signal(await world.device(sim), { go: true });
    for (let i = 0; i < 20 && sim.module.sync.signalsWaiting === 0; i++) await world.clock.advance(10);
    expect(await world.req(sim, { req: "hub.signal" })).toMatchObject({
      body: { go: true },
      connected: true,
    });
    await world.req(sim, { req: "hub.set", mode: "periodic" });
    await world.services.devices.signal(await world.device(sim), { bye: true });
    for (let i = 0; i < 20 && sim.module.sync.status().connected; i++) await world.clock.advance(10);
    expect(sim.module.sync.status().connected).toBe(false);
  });
});
