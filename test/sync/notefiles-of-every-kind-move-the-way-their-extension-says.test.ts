import { afterEach, describe, expect, it } from "vitest";
import { SyncWorld, TRANSPORTS } from "./support/syncWorld.js";

describe.each(TRANSPORTS)("over %s", (transport) => {
  let world: SyncWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("outbound queues become events once and leave the module; the first session provisions the device", async () => {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.req(sim, { req: "note.add", file: "sensors.qo", body: { temp: 21.5 } });
    await world.req(sim, { req: "note.add", file: "secure.qos", body: { pin: 1234 } });
    const status = await world.sync(sim);
    expect(status).toMatchObject({ status: "completed {sync-end}" });
    expect(status["alert"]).toBeUndefined();
    expect(sim.module.notebox.file("sensors.qo")?.notes.size ?? 0).toBe(0);
    const device = await world.services.store.devices.getDevice(sim.module.deviceUid);
    expect(device).toMatchObject({ projectUid: world.projectUid, productUid: world.productUid });
    const events = await world.events(sim);
    expect(events.map((e) => [e.file, e.data["req"], e.data["body"]])).toEqual([
      ["secure.qos", "note.add", { pin: 1234 }],
      ["sensors.qo", "note.add", { temp: 21.5 }],
    ]);
    // A second sync sends nothing again.
    await world.sync(sim);
    expect(await world.events(sim)).toHaveLength(2);
  });

  it("inbound queues from the API reach note.get once, and leave the hub's replica", async () => {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.sync(sim);
    const device = await world.device(sim);
    await world.services.notes.add(device, "commands.qi", null, { body: { on: true }, payload: null });
    await world.services.notes.add(device, "secret.qis", null, { body: { key: "k" }, payload: null });
    await world.sync(sim);
    expect(await world.req(sim, { req: "note.get", file: "commands.qi", delete: true })).toMatchObject({
      body: { on: true },
    });
    expect(await world.req(sim, { req: "note.get", file: "secret.qis", delete: true })).toMatchObject({
      body: { key: "k" },
    });
    expect((await sim.module.request({ req: "note.get", file: "commands.qi" }))!["err"]).toMatch(/noexist/);
    expect(
      await world.services.store.notefiles.listNotes(device.uid, "commands.qi", { includeDeleted: false }),
    ).toEqual([]);
    await world.sync(sim);
    expect((await sim.module.request({ req: "note.get", file: "commands.qi" }))!["err"]).toMatch(/noexist/);
  });

  it("databases move both ways, deletions too, and .dbx never leaves the module", async () => {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.req(sim, { req: "note.add", file: "config.db", note: "mode", body: { mode: "eco" } });
    await world.req(sim, { req: "note.add", file: "local.dbx", note: "x", body: { scratch: true } });
    await world.sync(sim);
    const device = await world.device(sim);
    expect(await world.services.store.notefiles.getNote(device.uid, "config.db", "mode")).toMatchObject({
      body: { mode: "eco" },
    });
    expect(await world.services.store.notefiles.getNotefile(device.uid, "local.dbx")).toBeUndefined();
    await world.services.notes.add(device, "config.db", "limits", { body: { max: 5 }, payload: null });
    await world.services.notes.delete(device, "config.db", "mode");
    await world.sync(sim);
    expect(await world.req(sim, { req: "note.get", file: "config.db", note: "limits" })).toMatchObject({
      body: { max: 5 },
    });
    expect((await sim.module.request({ req: "note.get", file: "config.db", note: "mode" }))!["err"]).toMatch(
      /note-noexist/,
    );
    await world.req(sim, { req: "note.delete", file: "config.db", note: "limits" });
    await world.sync(sim);
    const limits = await world.services.store.notefiles.getNote(device.uid, "config.db", "limits");
    expect(limits?.deleted ?? true).toBe(true);
  });
});
