import { afterEach, describe, expect, it } from "vitest";
import { ruleVerdict } from "../../hub/devices/SmartFleets.js";
import { newFleet, type FleetRecord } from "../../hub/store/records.js";
import type { SimulatedModule } from "../../runtime/SimulatedModule.js";
import { SyncWorld } from "../sync/support/syncWorld.js";

/** Membership follows a module's readings: in above 30 degrees, out below 10, unchanged between. */
const HOT_RULE = 'file = "sensors.qo" ? (body.temp > 30 ? 1 : (body.temp < 10 ? -1 : 0)) : 0';

let world: SyncWorld | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

async function fleet(w: SyncWorld, label: string, rule: string | null, enabled = true): Promise<FleetRecord> {
  const record = newFleet(
    { uid: w.services.ids.fleetUid(), projectUid: w.projectUid, label, created: w.clock.now() },
    { smartRule: rule, smartRuleEnabled: enabled },
  );
  await w.services.store.projects.createFleet(record);
  return record;
}

/** A reading, a sync, and the rules applied to what it stored: the device's fleets afterwards. */
async function reading(w: SyncWorld, sim: SimulatedModule, temp: number): Promise<string[]> {
  await w.req(sim, { req: "note.add", file: "sensors.qo", body: { temp } });
  await w.sync(sim);
  await w.services.smartFleets.idle();
  return [...(await w.device(sim)).fleetUids];
}

describe("smart fleets", () => {
  it("read a rule's value as the definition says: 1 in, -1 out, anything else unchanged", () => {
    expect(ruleVerdict(1)).toBe("add");
    expect(ruleVerdict(-1)).toBe("remove");
    for (const value of [0, 2, "1", true, null, undefined, [1], { a: 1 }, 1.5, -0.5]) {
      expect(ruleVerdict(value)).toBe("unchanged");
    }
  });

  it("take a device in and let it go as its events say, and its next sync sees the fleet's environment", async () => {
    world = await SyncWorld.start("in-process");
    const hot = await fleet(world, "hot", HOT_RULE);
    await world.services.store.env.set({ kind: "fleet", uid: hot.uid }, { fan: "on" }, world.clock.now());
    const sim = await world.module();
    await world.sync(sim);
    expect(await reading(world, sim, 20)).toEqual([]);
    expect(await reading(world, sim, 35)).toEqual([hot.uid]);
    // In the fleet now: its next session brings the fleet's variables.
    await world.sync(sim);
    expect(await world.req(sim, { req: "env.get", name: "fan" })).toMatchObject({ text: "on" });
    // Between the thresholds the rule says 0: nothing changes.
    expect(await reading(world, sim, 20)).toEqual([hot.uid]);
    expect(await reading(world, sim, 5)).toEqual([]);
  });

  it("leave a device alone when the rule fails, is disabled or is empty, and never touch other fleets", async () => {
    world = await SyncWorld.start("in-process");
    const broken = await fleet(world, "broken", "body.temp > ? 1");
    const failing = await fleet(world, "failing", "$error('no')");
    const disabled = await fleet(world, "disabled", "1", false);
    const empty = await fleet(world, "empty", null);
    const manual = await fleet(world, "manual", null);
    const hot = await fleet(world, "hot", HOT_RULE);
    const sim = await world.module();
    await world.sync(sim);
    await world.services.store.devices.addToFleets(sim.module.deviceUid, [manual.uid, failing.uid]);
    expect((await reading(world, sim, 40)).sort()).toEqual([failing.uid, hot.uid, manual.uid].sort());
    expect((await reading(world, sim, 0)).sort()).toEqual([failing.uid, manual.uid].sort());
    for (const f of [broken, disabled, empty]) {
      expect((await world.device(sim)).fleetUids).not.toContain(f.uid);
    }
  });

  it("apply a batch's events in the order they were stored: the last word counts", async () => {
    world = await SyncWorld.start("in-process");
    const hot = await fleet(world, "hot", HOT_RULE);
    const sim = await world.module();
    await world.sync(sim);
    for (const temp of [35, 5, 40])
      await world.req(sim, { req: "note.add", file: "sensors.qo", body: { temp } });
    await world.sync(sim);
    await world.services.smartFleets.idle();
    expect((await world.device(sim)).fleetUids).toEqual([hot.uid]);
    for (const temp of [40, 5]) await world.req(sim, { req: "note.add", file: "sensors.qo", body: { temp } });
    await world.sync(sim);
    await world.services.smartFleets.idle();
    expect((await world.device(sim)).fleetUids).toEqual([]);
  });

  it("see the event as routes do, on the hub's clock, and follow a rule changed through the API", async () => {
    world = await SyncWorld.start("in-process");
    const sim = await world.module();
    await world.sync(sim);
    const made = await world.api("POST", "/fleets", {
      label: "named",
      // The event's own members and the hub's clock ($millis) are what the rule sees.
      smart_rule: `device = "${sim.module.deviceUid}" and $millis() = ${world.clock.now()} ? 1 : 0`,
      smart_rule_enabled: true,
    });
    const uid = made["uid"] as string;
    expect(await reading(world, sim, 20)).toEqual([uid]);
    await world.api("PUT", `/fleets/${uid}`, { smart_rule: "-1" });
    expect(await reading(world, sim, 20)).toEqual([]);
    const fleets = await world.api("GET", `/devices/${sim.module.deviceUid}/fleets`);
    expect(fleets["fleets"]).toEqual([]);
  });
});
