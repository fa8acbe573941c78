import { afterEach, describe, expect, it } from "vitest";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import type { PowerLossMode } from "../../firmware/storage/flash/PowerLossFlashFs.js";
import { SyncWorld, TRANSPORTS, type Transport } from "./support/syncWorld.js";

/**
 * One sync's worth of work both ways: three outbound queue notes, a database note from the
 * module, two inbound queue notes and a database note from the hub.
 */
async function prepare(world: SyncWorld, sim: SimulatedModule): Promise<void> {
  await world.sync(sim); // the device exists on the hub
  for (let i = 0; i < 3; i++) await world.req(sim, { req: "note.add", file: "sensors.qo", body: { i } });
  await world.req(sim, { req: "note.add", file: "config.db", note: "mode", body: { mode: "eco" } });
  const device = await world.device(sim);
  await world.services.notes.add(device, "commands.qi", null, { body: { cmd: 1 }, payload: null });
  await world.services.notes.add(device, "commands.qi", null, { body: { cmd: 2 }, payload: null });
  await world.services.notes.add(device, "limits.db", "max", { body: { max: 9 }, payload: null });
}

/** Everything arrived once: events, the module's queues, the host's inbound notes, both databases. */
async function expectEverythingOnce(world: SyncWorld, sim: SimulatedModule, where: string): Promise<void> {
  const events = await world.events(sim);
  const sensors = events
    .filter((e) => e.file === "sensors.qo")
    .map((e) => (e.data["body"] as { i: number }).i);
  expect(sensors.sort(), `${where}: sensors.qo events`).toEqual([0, 1, 2]);
  expect(
    events.filter((e) => e.file === "config.db"),
    `${where}: config.db events`,
  ).toHaveLength(1);
  expect(sim.module.notebox.file("sensors.qo")?.notes.size ?? 0, `${where}: sent notes left`).toBe(0);
  const got: unknown[] = [];
  for (;;) {
    const reply = await sim.module.request({ req: "note.get", file: "commands.qi", delete: true });
    if (reply?.["err"]) break;
    got.push(reply?.["body"]);
  }
  expect(got, `${where}: inbound notes`).toEqual([{ cmd: 1 }, { cmd: 2 }]);
  expect(await world.req(sim, { req: "note.get", file: "limits.db", note: "max" }), where).toMatchObject({
    body: { max: 9 },
  });
  const device = await world.device(sim);
  expect(await world.services.store.notefiles.getNote(device.uid, "config.db", "mode"), where).toMatchObject({
    body: { mode: "eco" },
  });
  expect(
    await world.services.store.notefiles.listNotes(device.uid, "commands.qi", { includeDeleted: true }),
    `${where}: the hub's inbound queue`,
  ).toEqual([]);
}

/** How many messages a clean sync of the prepared work takes. */
async function messagesOfOneSync(transport: Transport): Promise<number> {
  const world = await SyncWorld.start(transport);
  try {
    const sim = await world.module();
    await prepare(world, sim);
    const before = world.links.get(sim)!.exchanges;
    await world.sync(sim);
    await expectEverythingOnce(world, sim, "a clean sync");
    return world.links.get(sim)!.exchanges - before;
  } finally {
    await world.close();
  }
}

describe.each(TRANSPORTS)("over %s", (transport) => {
  let world: SyncWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  it("a message lost at any point, before or after the hub acted on it, loses and repeats nothing", async () => {
    const messages = await messagesOfOneSync(transport);
    // (Seven: the open carries the first push.)
    expect(messages).toBeGreaterThanOrEqual(7);
    for (let k = 1; k <= messages; k++) {
      for (const failure of ["unreachable", "dropped"] as const) {
        world = await SyncWorld.start(transport);
        const sim = await world.module();
        await prepare(world, sim);
        const link = world.links.get(sim)!;
        const start = link.exchanges;
        link.fail({ failure, when: () => link.exchanges === start + k });
        const failed = await world.sync(sim);
        expect(failed["alert"], `message ${k} ${failure}`).toBe(true);
        await world.sync(sim);
        await expectEverythingOnce(world, sim, `message ${k} ${failure}`);
        await world.close();
        world = undefined;
      }
    }
  }, 120_000);

  it.each(["drop-unsynced", "torn-write", "rename-lost"] as PowerLossMode[])(
    "the module losing power (%s) at any flash write of a sync loses and repeats nothing",
    async (mode) => {
      // Count the flash writes of a clean sync on the power-loss flash.
      world = await SyncWorld.start(transport);
      let sim = await world.module({ flash: { powerLoss: {} } });
      await prepare(world, sim);
      const before = sim.flash!.steps;
      await world.sync(sim);
      const writes = sim.flash!.steps - before;
      await world.close();
      world = undefined;
      expect(writes).toBeGreaterThan(3);
      for (let step = 1; step <= writes; step++) {
        world = await SyncWorld.start(transport);
        sim = await world.module({ flash: { powerLoss: {} } });
        await prepare(world, sim);
        sim.armPowerLoss(step, mode, 1000);
        await world.req(sim, { req: "hub.sync" });
        await sim.module.sync.idle();
        await world.clock.advance(1000);
        await sim.restoring;
        expect(sim.powerLosses, `step ${step}`).toBe(1);
        await world.sync(sim);
        await expectEverythingOnce(world, sim, `${mode}, flash write ${step} of ${writes}`);
        await world.close();
        world = undefined;
      }
    },
    180_000,
  );
});
