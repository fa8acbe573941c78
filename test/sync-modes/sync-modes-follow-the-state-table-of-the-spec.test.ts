import { afterEach, describe, expect, it } from "vitest";
import { MINUTE, modesWorld, type ModesWorld } from "./support/modes.js";

let w: ModesWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

const mode = async (w: ModesWorld) => (await w.req({ req: "hub.get" }))["mode"];

describe("the module sync mode state table", () => {
  it("any --hub.set mode--> that mode; dfu behaves like off for the network", async () => {
    w = await modesWorld();
    for (const m of ["continuous", "minimum", "off", "dfu", "periodic"]) {
      await w.req({ req: "hub.set", mode: m });
      expect(await mode(w)).toBe(m);
    }
    await w.req({ req: "hub.set", mode: "dfu", inbound: 10 });
    await w.req({ req: "note.add", body: { n: 1 }, sync: true });
    await w.req({ req: "hub.sync" });
    await w.run(30 * MINUTE);
    expect(w.sessions).toHaveLength(0);
    expect(w.sim.module.schedule.nextSync()).toBeUndefined();
  });

  it("any --hub.set mode:-'--> periodic", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "off", uoff: true });
    await w.req({ req: "hub.set", mode: "-" });
    expect(await mode(w)).toBe("periodic");
  });

  it("dfu --hub.set mode:dfu-completed--> the previous mode", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "continuous" });
    await w.req({ req: "hub.set", mode: "dfu" });
    await w.run(MINUTE);
    expect(w.sim.module.sync.isOnline).toBe(false);
    await w.req({ req: "hub.set", mode: "dfu-completed" });
    expect(await mode(w)).toBe("continuous");
    await w.run(MINUTE);
    expect(w.sim.module.sync.isOnline).toBe(true);
  });

  it("periodic --hub.set on--> continuous (temporary) for `seconds`, then periodic again", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", on: true, seconds: 120 });
    await w.run(MINUTE, 10_000);
    expect(w.sim.module.sync.isOnline).toBe(true);
    expect(w.sim.module.schedule.mode()).toBe("continuous");
    await w.run(MINUTE + 10_000, 10_000);
    expect(w.sim.module.sync.isOnline).toBe(false);
    expect(w.sim.module.schedule.mode()).toBe("periodic");
    expect(w.sessions.map((s) => s.why)).toEqual(["continuous"]);
  });

  it("temporary continuous lasts 300 s by default", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", on: true });
    await w.run(299_000, 1000);
    expect(w.sim.module.sync.isOnline).toBe(true);
    await w.run(2000, 1000);
    expect(w.sim.module.sync.isOnline).toBe(false);
  });

  it("continuous (temporary) --hub.set off--> periodic at once", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", on: true });
    await w.run(MINUTE);
    await w.req({ req: "hub.set", off: true });
    await w.run(1000, 1000);
    expect(w.sim.module.sync.isOnline).toBe(false);
    expect(w.sim.module.schedule.temporary).toBe(false);
  });

  it("hub.set on is ignored when already continuous (off ends nothing)", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "continuous" });
    await w.run(MINUTE);
    await w.req({ req: "hub.set", on: true, seconds: 60 });
    expect(w.sim.module.schedule.temporary).toBe(false);
    await w.req({ req: "hub.set", off: true });
    await w.run(5 * MINUTE);
    expect(w.sim.module.sync.isOnline).toBe(true);
  });

  it.each([
    ["umin", "minimum"],
    ["uoff", "off"],
    ["uperiodic", "periodic"],
  ])(
    "any --hub.set %s--> continuous on USB power, %s on battery, at each supply change",
    async (flag, fallback) => {
      w = await modesWorld();
      w.sim.power.onUsb = true;
      await w.req({ req: "hub.set", [flag]: true });
      expect(await mode(w)).toBe("continuous");
      await w.run(MINUTE);
      expect(w.sim.module.sync.isOnline).toBe(true);
      w.sim.power.onUsb = false;
      expect(await mode(w)).toBe(fallback);
      await w.run(2 * MINUTE);
      expect(w.sim.module.sync.isOnline).toBe(false);
      const before = w.sessions.length;
      w.sim.power.onUsb = true;
      await w.run(MINUTE);
      expect(w.sim.module.sync.isOnline).toBe(true);
      expect(w.sessions.length).toBe(before + 1);
    },
  );

  it("minimum --hub.sync--> syncs once and stays minimum", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "minimum", outbound: 5, inbound: 5 });
    // note.add sync:true does not sync in minimum mode: hub.set.req.notecard.api.json, mode
    // `minimum`: "The Notecard will not sync until it receives an explicit `hub.sync` request."
    await w.req({ req: "note.add", body: { n: 1 }, sync: true });
    await w.run(60 * MINUTE);
    expect(w.sessions).toHaveLength(0);
    await w.world.sync(w.sim);
    expect(w.sessions.map((s) => [s.why, s.ok])).toEqual([["explicit", true]]);
    expect(await mode(w)).toBe("minimum");
    await w.run(60 * MINUTE);
    expect(w.sessions).toHaveLength(1);
  });

  it("in off mode hub.sync is ignored", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "off" });
    await w.req({ req: "note.add", body: { n: 1 } });
    expect(await w.req({ req: "hub.sync" })).toEqual({});
    await w.sim.module.sync.idle();
    await w.run(MINUTE);
    expect(w.sessions).toHaveLength(0);
  });
});
