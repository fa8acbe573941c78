import { afterEach, describe, expect, it } from "vitest";
import { DEFAULT_DURATION_MINUTES } from "../../firmware/sync/SyncSchedule.js";
import { MINUTE, modesWorld, type ModesWorld } from "./support/modes.js";

let w: ModesWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe("continuous mode", () => {
  it("opens a session as soon as the module enters the mode, without an explicit sync", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "continuous" });
    await w.run(MINUTE);
    expect(w.sessions.map((s) => s.why)).toEqual(["continuous"]);
    expect(w.sim.module.sync.isOnline).toBe(true);
    expect(await w.req({ req: "hub.status" })).toMatchObject({ connected: true });
  });

  it("closes and reopens the session every `duration` minutes", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "continuous", duration: 30 });
    await w.run(100 * MINUTE);
    expect(w.starts((s) => s.why === "continuous")).toEqual([0, 30, 60, 90]);
    expect(w.sim.module.schedule.nextSync()).toMatchObject({ why: "renew" });
    expect(w.sim.module.sync.isOnline).toBe(true);
  });

  it(`renews every ${DEFAULT_DURATION_MINUTES} minutes when no duration is set`, async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "continuous" });
    await w.run(DEFAULT_DURATION_MINUTES * 2 * MINUTE + MINUTE, 10 * MINUTE);
    expect(w.starts()).toEqual([0, DEFAULT_DURATION_MINUTES, 2 * DEFAULT_DURATION_MINUTES]);
  });

  it("leaving continuous mode closes the session", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "continuous" });
    await w.run(MINUTE);
    await w.req({ req: "hub.set", mode: "periodic" });
    await w.run(2 * MINUTE);
    expect(w.sim.module.sync.isOnline).toBe(false);
  });

  it("a signal sent while the session is open arrives at once", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", mode: "continuous", sync: true });
    await w.run(MINUTE);
    const device = await w.world.device(w.sim);
    await w.world.services.devices.signal(device, { hello: 1 });
    await w.run(1000, 1000);
    expect(await w.req({ req: "hub.signal" })).toMatchObject({ body: { hello: 1 } });
  });
});
