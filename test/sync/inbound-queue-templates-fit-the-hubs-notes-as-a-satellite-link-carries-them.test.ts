import { afterEach, describe, expect, it } from "vitest";
import { SyncWorld } from "./support/syncWorld.js";

/*
 * Templates on inbound queues: note.template's `file` is "the Notefile to which the template will
 * be applied" (note.template.req schema), and the satellite guide
 * (dev.blues.io/starnote/satellite-best-practices, "Optimize Use of Compact Templates") has hosts
 * template the .qi files the hub sends over NTN as well as the .qo files they send.
 */
describe("a template on an inbound queue", () => {
  let world: SyncWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("fits the hub's notes to it: fields it lacks are dropped, values take its sizes", async () => {
    world = await SyncWorld.start("in-process");
    const sim = await world.module();
    await world.sync(sim);
    expect(
      await world.req(sim, { req: "note.template", file: "commands.qi", body: { on: true, level: 11 } }),
    ).toEqual({ bytes: expect.any(Number) });
    const device = await world.device(sim);
    const body = { on: true, level: 7, extra: "not in the template" };
    await world.services.notes.add(device, "commands.qi", null, { body, payload: null });
    await world.services.notes.add(device, "plain.qi", null, { body, payload: null });
    await world.sync(sim);
    expect(await world.req(sim, { req: "note.get", file: "commands.qi", delete: true })).toMatchObject({
      body: { on: true, level: 7 },
    });
    // An untemplated inbound queue keeps the note as the hub sent it.
    expect(await world.req(sim, { req: "note.get", file: "plain.qi" })).toMatchObject({ body });
  });

  it("keeps a note the template cannot hold as the hub sent it", async () => {
    world = await SyncWorld.start("in-process");
    const sim = await world.module();
    await world.sync(sim);
    await world.req(sim, { req: "note.template", file: "commands.qi", body: { level: 11 } });
    const device = await world.device(sim);
    await world.services.notes.add(device, "commands.qi", null, { body: { level: "high" }, payload: null });
    await world.sync(sim);
    expect(await world.req(sim, { req: "note.get", file: "commands.qi" })).toMatchObject({
      body: { level: "high" },
    });
  });
});
