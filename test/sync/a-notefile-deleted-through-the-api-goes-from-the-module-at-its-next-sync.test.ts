import { afterEach, describe, expect, it } from "vitest";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { SyncWorld, TRANSPORTS, type Transport } from "./support/syncWorld.js";

/**
 * Delete Notefiles (`DELETE /v1/projects/{p}/devices/{d}/files`, the hub's `deleteNotefiles`)
 * "deletes Notefiles and the Notes they contain" (the hub's OpenAPI definition): the hub keeps the
 * deletion as a tombstone of the notefile and tells the module at its next session, which deletes
 * what it holds of the hub's and confirms in its `close` (docs/sync-protocol.md).
 */
describe.each(TRANSPORTS)("a notefile deleted through the hub's API (%s)", (transport: Transport) => {
  let world: SyncWorld;
  afterEach(async () => world?.close());

  /** A database with a note from each end, and an inbound queue note the host has not read. */
  async function synced(): Promise<SimulatedModule> {
    world = await SyncWorld.start(transport);
    const sim = await world.module();
    await world.req(sim, { req: "note.add", file: "config.db", note: "mine", body: { v: 1 } });
    await world.sync(sim);
    const device = await world.device(sim);
    await world.services.notes.add(device, "config.db", "theirs", { body: { v: 2 }, payload: null });
    await world.services.notes.add(device, "commands.qi", null, { body: { cmd: 1 }, payload: null });
    await world.sync(sim);
    expect(sim.module.notebox.file("config.db")?.notes.size).toBe(2);
    expect(sim.module.notebox.file("commands.qi")?.notes.size).toBe(1);
    return sim;
  }

  const tombstones = async (sim: SimulatedModule) =>
    world.services.store.notefiles.deletedNotefiles(sim.module.deviceUid);
  const hubNotefiles = async (sim: SimulatedModule) =>
    (await world.services.store.notefiles.listNotefiles(sim.module.deviceUid)).map((f) => f.fileId).sort();

  it("goes from the module at the next sync, and the hub then forgets the deletion", async () => {
    const sim = await synced();
    await world.services.notes.deleteNotefiles(await world.device(sim), ["config.db", "commands.qi"]);
    expect(await tombstones(sim)).toEqual(["commands.qi", "config.db"]);
    // Nothing changes on the module before it syncs.
    expect(sim.module.notebox.file("config.db")?.notes.size).toBe(2);

    expect((await world.sync(sim))["status"]).toMatch(/\{sync-end\}/);
    expect(sim.module.notebox.file("config.db")).toBeUndefined();
    expect(sim.module.notebox.file("commands.qi")).toBeUndefined();
    expect((await sim.module.request({ req: "note.get", file: "config.db", note: "mine" }))?.["err"]).toMatch(
      /\{notefile-noexist\}/,
    );
    expect((await sim.module.request({ req: "note.get", file: "commands.qi" }))?.["err"]).toMatch(
      /\{notefile-noexist\}/,
    );
    expect(await tombstones(sim)).toEqual([]);
    expect(await hubNotefiles(sim)).not.toContain("config.db");

    // The next session has nothing to delete, and the module's new notes create the file again.
    await world.req(sim, { req: "note.add", file: "config.db", note: "again", body: { v: 3 } });
    expect((await world.sync(sim))["status"]).toMatch(/\{sync-end\}/);
    expect([...sim.module.notebox.file("config.db")!.notes.keys()]).toEqual(["again"]);
    expect(await hubNotefiles(sim)).toContain("config.db");
  });

  it("keeps the module's own change made meanwhile, which creates the database on the hub again", async () => {
    const sim = await synced();
    await world.services.notes.deleteNotefiles(await world.device(sim), ["config.db"]);
    await world.req(sim, { req: "note.update", file: "config.db", note: "mine", body: { v: 10 } });
    await world.sync(sim);
    expect([...sim.module.notebox.file("config.db")!.notes.keys()]).toEqual(["mine"]);
    const device = await world.device(sim);
    const note = await world.services.notes.get(device, "config.db", "mine", {
      includeDeleted: false,
      take: false,
    });
    expect(note.body).toEqual({ v: 10 });
    await expect(
      world.services.notes.get(device, "config.db", "theirs", { includeDeleted: false, take: false }),
    ).rejects.toThrow();
    expect(await tombstones(sim)).toEqual([]);
  });

  it("says it again when the confirmation was lost, and the module deletes nothing of its own then", async () => {
    const sim = await synced();
    await world.services.notes.deleteNotefiles(await world.device(sim), ["config.db"]);
    // Neither close that confirms (the session's, then the one after its error) reaches the hub.
    for (let i = 0; i < 2; i++)
      world.links.get(sim)!.fail({ when: (r) => r.type === "close", failure: "unreachable" });
    expect((await world.sync(sim))["status"]).not.toMatch(/\{sync-end\}/);
    expect(sim.module.notebox.file("config.db")).toBeUndefined();
    expect(await tombstones(sim)).toEqual(["config.db"]);

    // Meanwhile the host writes the database again; the repeated deletion leaves that alone.
    await world.req(sim, { req: "note.add", file: "config.db", note: "later", body: { v: 4 } });
    expect((await world.sync(sim, { allow: true }))["status"]).toMatch(/\{sync-end\}/);
    expect([...sim.module.notebox.file("config.db")!.notes.keys()]).toEqual(["later"]);
    expect(await tombstones(sim)).toEqual([]);
    const later = await world.services.notes.get(await world.device(sim), "config.db", "later", {
      includeDeleted: false,
      take: false,
    });
    expect(later.body).toEqual({ v: 4 });
  });

  it("a module's own queue is not the hub's to delete: the API refuses outbound queues", async () => {
    const sim = await synced();
    await world.req(sim, { req: "note.add", file: "sensors.qo", body: { t: 1 } });
    await expect(
      world.services.notes.deleteNotefiles(await world.device(sim), ["sensors.qo"]),
    ).rejects.toThrow();
    expect(sim.module.notebox.file("sensors.qo")?.notes.size).toBe(1);
  });
});
