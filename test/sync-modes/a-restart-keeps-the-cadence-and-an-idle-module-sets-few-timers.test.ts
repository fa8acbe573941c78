import { afterEach, describe, expect, it } from "vitest";
import { MINUTE, modesWorld, type ModesWorld } from "./support/modes.js";

let w: ModesWorld | undefined;
afterEach(async () => {
  await w?.close();
  w = undefined;
});

describe("the schedule over time", () => {
  it("a restart goes on with the inbound cadence from flash instead of starting it from zero", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", inbound: 60 });
    await w.run(100 * MINUTE);
    expect(w.starts()).toEqual([60]);
    await w.sim.module.restart();
    w.record();
    await w.run(30 * MINUTE);
    // From the check at 60: the next is at 120, not 60 minutes after the restart (160).
    expect(w.starts()).toEqual([60, 120]);
  });

  it("a power cycle keeps the cadence too", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", inbound: 60 });
    await w.run(90 * MINUTE);
    await w.sim.powerCycle();
    w.record();
    await w.run(40 * MINUTE);
    expect(w.starts()).toEqual([60, 120]);
  });

  it("an idle periodic module sets a handful of timers over a simulated day (no polling)", async () => {
    w = await modesWorld();
    await w.req({ req: "hub.set", outbound: 5, inbound: 360 });
    const schedule = w.sim.module.schedule;
    const before = schedule.timersSet;
    await w.run(24 * 60 * MINUTE, 60 * MINUTE);
    // Nothing pending: only the four inbound checks of the day wake the module.
    expect(w.starts()).toEqual([360, 720, 1080, 1440]);
    expect(schedule.timersSet - before).toBeLessThanOrEqual(6);
    expect(w.world.clock.pendingTimers()).toBeLessThan(10);
  });
});
